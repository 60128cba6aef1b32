import Foundation
import HearthAuth
import HearthCore
import HearthStore
import Testing

@Suite("Mail format")
struct MailFormatTests {
    let date = Date(timeIntervalSince1970: 1_767_225_600)  // Thu, 01 Jan 2026 00:00:00 UTC

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func asciiMessagesAre7bitWithCRLFAndDotStuffing() throws {
        let message = text(try MailFormat.render(
            from: "Hearth <no-reply@example.com>", to: "ann@example.com", subject: "Reset your password",
            body: "Line one\n.starts with a dot\n..two dots\nlast", date: date, messageID: "m1"))
        #expect(message.hasPrefix("From: Hearth <no-reply@example.com>\r\nTo: ann@example.com\r\nSubject: Reset your password\r\n"))
        #expect(message.contains("Date: Thu, 01 Jan 2026 00:00:00 +0000\r\n"))
        #expect(message.contains("Message-ID: <m1@example.com>\r\n"))
        #expect(message.contains("Content-Transfer-Encoding: 7bit\r\n\r\nLine one\r\n..starts with a dot\r\n...two dots\r\nlast\r\n"))
        #expect(!message.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare LF")
    }

    @Test func nonASCIITextIsEncoded() throws {
        let message = text(try MailFormat.render(
            from: "Zoë's App <a@example.com>", to: "b@example.com", subject: "Réinitialiser", body: "Bonjour Zoë\n", date: date,
            messageID: "m2"))
        #expect(message.contains("From: =?utf-8?B?\(Data("Zoë's App".utf8).base64EncodedString())?= <a@example.com>\r\n"))
        #expect(message.contains("Subject: =?utf-8?B?\(Data("Réinitialiser".utf8).base64EncodedString())?=\r\n"))
        #expect(message.contains("Content-Transfer-Encoding: base64\r\n\r\n\(Data("Bonjour Zoë\n".utf8).base64EncodedString())\r\n"))
    }

    @Test func displayNamesWithSpecialsAreQuoted() throws {
        let message = text(try MailFormat.render(
            from: "Acme, Inc. <a@example.com>", to: "b@example.com", subject: "s", body: "b", date: date, messageID: "m3"))
        #expect(message.hasPrefix("From: \"Acme, Inc.\" <a@example.com>\r\n"))
    }

    @Test(arguments: [
        "a@b.c\r\nBcc: victim@example.com", "a@b.c>\r\nRCPT TO:<x@y.z", "<a@b.c>", "a b@c.d", "a@b.c,d@e.f", "no-at-sign", "a@b@c",
        "tab\t@b.c", "\u{85}x@b.c",
    ])
    func addressesThatCouldInjectAreRefused(_ address: String) {
        #expect(throws: MailFormat.InvalidAddress.self) {
            try MailFormat.render(from: "a@example.com", to: address, subject: "s", body: "b", date: date, messageID: "m")
        }
        #expect(throws: MailFormat.InvalidAddress.self) {
            try MailFormat.render(from: "Name <\(address)>", to: "a@example.com", subject: "s", body: "b", date: date, messageID: "m")
        }
    }

    @Test func subjectsCannotAddHeaders() throws {
        let message = text(try MailFormat.render(
            from: "a@example.com", to: "b@example.com", subject: "Hi\r\nBcc: x@y.z", body: "b", date: date, messageID: "m"))
        #expect(message.contains("Subject: HiBcc: x@y.z\r\n"))
        #expect(!message.contains("\r\nBcc:"))
    }

    @Test func signUpRefusesAddressesAMailCouldNotCarry() async throws {
        let auth = AuthService(projectID: "p", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: PasswordHasher(rounds: 1 << 4))
        for email in ["a@b.c\r\nBcc: x@y.z", "a@b.c>", "a;b@c.d", String(repeating: "a", count: 250) + "@b.cd"] {
            let body = JSONValue.object([JSONMember("email", .string(email)), JSONMember("password", .string("secret1"))])
            await #expect(throws: AuthError("INVALID_EMAIL"), "\(email.debugDescription)") {
                try await auth.signUp(body, privileged: false)
            }
        }
        let ok = JSONValue.object([JSONMember("email", .string("o'brien+tag@example.co.uk")), JSONMember("password", .string("secret1"))])
        _ = try await auth.signUp(ok, privileged: false)
    }
}
