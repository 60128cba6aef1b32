import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthWire
import Hummingbird
import NIOCore

/// The page emailed links open outside `--dev` (`/__/auth/action`, as Firebase Hosting serves
/// it): reset a password, confirm an email address, or hand a sign-in link to the app.
///
/// Opening a link never changes anything by itself: the page asks for a click (a POST), so mail
/// scanners that fetch every link cannot use up a code. The page sends no referrer (its URL
/// holds the code), runs no script and cannot be framed.
struct ActionPage: Sendable {
    let service: AuthService
    /// Where links in mails sent from here point (an email change mails a recovery link).
    var linkBase: String?

    static let path = "/__/auth/action"
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    func respond(to request: Request) async -> Response {
        var p = parseQueryString(request.uri.query)
        if request.method == .post {
            let form = (try? await request.body.collect(upTo: 64 * 1024)).map { parseFormBody(String(buffer: $0)) } ?? [:]
            p.merge(form) { _, posted in posted }
        } else if request.method != .get {
            return page("Not found", "This page does not exist.", status: .notFound)
        }
        guard let code = p["oobCode"], !code.isEmpty, let mode = p["mode"] else {
            return page("Invalid link", "This link is incomplete. Open the latest email you received and try again.", status: .badRequest)
        }
        let continueURL = p["continueUrl"].flatMap(allowedContinueURL)
        do {
            switch (mode, request.method) {
            case ("signIn", _):
                guard let continueURL else {
                    return page("Sign in", "Open this link on the device where you asked to sign in, in the app.", status: .badRequest)
                }
                var h = HTTPFields()
                h[.location] = Self.signInLocation(continueURL, parameters: p)
                h[Self.referrerPolicy] = "no-referrer"
                return Response(status: .seeOther, headers: h)
            case ("resetPassword", .get):
                let info = try await service.resetPassword(IdentityToolkit.ResetPasswordRequest(oobCode: code))
                guard info.requestType == IdentityToolkit.OobRequestType.passwordReset.rawValue else { throw AuthError("INVALID_OOB_CODE") }
                return page("Reset your password", "Choose a new password for \(info.email ?? "your account").",
                    form: form(mode, code, continueURL, button: "Save", passwordField: true))
            case ("resetPassword", .post):
                _ = try await service.resetPassword(IdentityToolkit.ResetPasswordRequest(oobCode: code, newPassword: p["newPassword"] ?? ""))
                return page("Password changed", "You can now sign in with your new password.", continueURL: continueURL)
            case ("verifyEmail", .get), ("verifyAndChangeEmail", .get):
                let info = try await service.resetPassword(IdentityToolkit.ResetPasswordRequest(oobCode: code))
                let email = info.newEmail ?? info.email ?? "your email address"
                return page("Confirm your email", "Confirm that \(email) is yours.", form: form(mode, code, continueURL, button: "Confirm"))
            case ("verifyEmail", .post), ("verifyAndChangeEmail", .post):
                _ = try await service.update(IdentityToolkit.SetAccountInfoRequest(oobCode: code), privileged: false, linkBase: linkBase)
                return page("Email confirmed", "Your email address has been confirmed.", continueURL: continueURL)
            case ("recoverEmail", .get):
                let info = try await service.resetPassword(IdentityToolkit.ResetPasswordRequest(oobCode: code))
                guard info.requestType == IdentityToolkit.OobRequestType.recoverEmail.rawValue else { throw AuthError("INVALID_OOB_CODE") }
                return page(
                    "Restore your email", "Change your account's email back to \(info.email ?? "this address")? Everyone signed in to the account will be signed out.",
                    form: form(mode, code, continueURL, button: "Restore"))
            case ("recoverEmail", .post):
                _ = try await service.update(IdentityToolkit.SetAccountInfoRequest(oobCode: code), privileged: false, linkBase: linkBase)
                return page("Email restored", "Your account's email has been changed back. Consider resetting your password.", continueURL: continueURL)
            default:
                return page("Invalid link", "This link is not one Hearth understands.", status: .badRequest)
            }
        } catch let error as AuthError {
            switch error.code {
            case "WEAK_PASSWORD":
                return page("Reset your password", "Passwords need at least 6 characters. Try again.",
                    form: form(mode, code, continueURL, button: "Save", passwordField: true), status: .badRequest)
            case "USER_DISABLED":
                return page("Account disabled", "This account has been disabled.", status: .badRequest)
            default:
                return page("Link expired", "This link has expired or has already been used. Ask for a new one.", status: .badRequest)
            }
        } catch {
            return page("Something went wrong", "Please try again later.", status: .internalServerError)
        }
    }

    /// The link's parameters a sign-in redirect hands to the app, in this order (the SDKs read `mode`, `oobCode`,
    /// `apiKey`, `continueUrl`, `lang` and `tenantId`).
    static let signInParameters = ["mode", "oobCode", "apiKey", "continueUrl", "lang", "tenantId"]

    /// Where a sign-in link leads: the app's continue URL, as parsed, with the link's parameters added to its query
    /// (before any fragment, which clients do not read), where the SDKs look for `mode=signIn` and the `oobCode`.
    /// Every part is rebuilt and encoded here; nothing of the request is echoed.
    static func signInLocation(_ continueURL: ContinueURL, parameters: [String: String]) -> String {
        let query = signInParameters.compactMap { name -> String? in
            guard let value = name == "continueUrl" ? continueURL.description : parameters[name] else { return nil }
            return name + "=" + percentEncodeComponent(value)
        }
        return continueURL.adding(query: query.joined(separator: "&"))
    }

    /// The continue URL, if browsers read it as this server does and it is on an authorized domain (the same check
    /// as when the link was sent: a tampered link cannot turn this page into an open redirect).
    private func allowedContinueURL(_ url: String) -> ContinueURL? {
        try? service.authorizedContinueURL(url)
    }

    private func form(_ mode: String, _ code: String, _ continueURL: ContinueURL?, button: String, passwordField: Bool = false) -> String {
        var fields = hidden("mode", mode) + hidden("oobCode", code)
        if let continueURL { fields += hidden("continueUrl", continueURL.description) }
        if passwordField {
            fields += #"<label>New password <input type="password" name="newPassword" minlength="6" required autocomplete="new-password"></label>"#
        }
        return #"<form method="post" action="\#(Self.path)">"# + fields + #"<button type="submit">\#(HTML.escape(button))</button></form>"#
    }

    private func hidden(_ name: String, _ value: String) -> String {
        #"<input type="hidden" name="\#(name)" value="\#(HTML.escape(value))">"#
    }

    private func page(
        _ title: String, _ message: String, form: String = "", continueURL: ContinueURL? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        let next = continueURL.map { #"<p><a href="\#(HTML.escape($0.description))">Continue</a></p>"# } ?? ""
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
            <title>\(HTML.escape(title))</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}\
            input,button{font:inherit;display:block;margin:.5rem 0;padding:.4rem;width:100%}</style></head>\
            <body><h1>\(HTML.escape(title))</h1><p>\(HTML.escape(message))</p>\(form)\(next)</body></html>
            """
        var h = HTTPFields()
        h[.contentType] = "text/html; charset=utf-8"
        h[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
        h[Self.referrerPolicy] = "no-referrer"
        h[.cacheControl] = "no-store"
        h[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: status, headers: h, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
