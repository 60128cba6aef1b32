import Foundation
import Observation

/// Where a view model stands with its one action.
public enum Progress: Sendable, Equatable {
    case idle
    case working
    case failed(AppError)
    case done
}

/// Welcome: decides between the sign-in screens and the app.
@MainActor @Observable
public final class WelcomeViewModel {
    public enum Route: Sendable, Equatable { case checking, signedOut, signedIn(uid: String) }
    public private(set) var route: Route = .checking
    private let useCases: UseCases

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public func start() async {
        route = await useCases.repositories.session.currentUserID().map { .signedIn(uid: $0) } ?? .signedOut
    }
}

/// Login: email and password.
@MainActor @Observable
public final class LoginViewModel {
    public var email = ""
    public var password = ""
    public private(set) var progress: Progress = .idle
    public private(set) var uid: String?
    private let useCases: UseCases

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public var canSubmit: Bool { !email.isEmpty && !password.isEmpty && progress != .working }

    public func logIn() async {
        progress = .working
        do {
            uid = try await useCases.signIn(email: email, password: password)
            progress = .done
        } catch {
            progress = .failed(error)
        }
    }
}

/// Register: email, password and the name comments show.
@MainActor @Observable
public final class RegisterViewModel {
    public var email = ""
    public var password = ""
    public var displayName = ""
    public private(set) var progress: Progress = .idle
    public private(set) var uid: String?
    private let useCases: UseCases

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public var canSubmit: Bool { !email.isEmpty && password.count >= 6 && !displayName.isEmpty && progress != .working }

    public func register() async {
        progress = .working
        do {
            uid = try await useCases.register(email: email, password: password, displayName: displayName)
            progress = .done
        } catch {
            progress = .failed(error)
        }
    }
}

/// Scan: takes what the camera read and routes to the topic's comments (or its empty state).
@MainActor @Observable
public final class ScanViewModel {
    public enum Route: Sendable, Equatable {
        case noComments(Barcode, Topic)
        case comments(Barcode, Topic)
    }

    public private(set) var progress: Progress = .idle
    public private(set) var route: Route?
    private let useCases: UseCases

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public func scanned(_ text: String) async {
        progress = .working
        route = nil
        do {
            let topic = try await useCases.scan(text)
            guard let code = topic.barcode else { throw AppError.failed("unreadable topic key \(topic.code)") }
            route = topic.commentCount == 0 ? .noComments(code, topic) : .comments(code, topic)
            progress = .done
        } catch let error as AppError {
            progress = .failed(error)
        } catch {
            progress = .failed(.failed("\(error)"))
        }
    }
}

/// No comments: the empty state of a freshly scanned code, inviting the first comment.
@MainActor @Observable
public final class NoCommentsViewModel {
    public let code: Barcode
    public var title: String { "No comments on \(code.displayText) yet" }
    public var callToAction: String { "Be the first to comment" }

    public init(code: Barcode) { self.code = code }
}

/// Comments: newest first, 20 at a time, the newest page live.
@MainActor @Observable
public final class CommentsViewModel {
    public let code: Barcode
    /// The live newest page followed by the older pages loaded so far.
    public private(set) var comments: [Comment] = []
    public private(set) var progress: Progress = .idle
    public private(set) var hasMore = true
    private var live: [Comment] = []
    private var older: [Comment] = []
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?

    public init(code: Barcode, _ useCases: UseCases) {
        self.code = code
        self.useCases = useCases
    }

    /// Starts following the newest page; updates arrive until `stop()`.
    public func start() {
        guard watcher == nil else { return }
        progress = .working
        let stream = useCases.repositories.comments.newest(of: code, limit: UseCases.pageSize)
        watcher = Task { [weak self] in
            do {
                for try await page in stream {
                    guard let self else { return }
                    // A comment pushed out of the newest page by a new one stays in the list.
                    let kept = Set(page.map(\.id))
                    self.older += self.live.filter { !kept.contains($0.id) }
                    self.live = page
                    if self.progress == .working { self.hasMore = page.count == UseCases.pageSize }
                    self.merge()
                    self.progress = .done
                }
            } catch {
                self?.progress = .failed(ErrorMapping.app(error))
            }
        }
    }

    public func stop() {
        watcher?.cancel()
        watcher = nil
    }

    /// Loads the next 20 older comments.
    public func loadMore() async {
        guard hasMore, let last = comments.last else { return }
        do {
            let page = try await useCases.repositories.comments.page(of: code, olderThan: last, limit: UseCases.pageSize)
            older += page
            hasMore = page.count == UseCases.pageSize
            merge()
        } catch {
            progress = .failed(error)
        }
    }

    private func merge() {
        var seen = Set<String>()
        comments = (live + older).filter { seen.insert($0.id).inserted }.sorted { ($0.commentDate, $0.id) > ($1.commentDate, $1.id) }
    }
}

/// Create comment: text and an optional photo.
@MainActor @Observable
public final class CreateCommentViewModel {
    public let code: Barcode
    public var text = ""
    public var photo: Data?
    public private(set) var progress: Progress = .idle
    public private(set) var created: Comment?
    private let useCases: UseCases

    public init(code: Barcode, _ useCases: UseCases) {
        self.code = code
        self.useCases = useCases
    }

    public var remainingCharacters: Int { UseCases.maxCommentLength - text.trimmingCharacters(in: .whitespacesAndNewlines).count }
    public var canSubmit: Bool { remainingCharacters >= 0 && remainingCharacters < UseCases.maxCommentLength && progress != .working }

    public func submit() async {
        progress = .working
        do {
            created = try await useCases.comment(on: code, CommentDraft(text: text, photo: photo))
            text = ""
            photo = nil
            progress = .done
        } catch {
            progress = .failed(error)
        }
    }
}

/// Feed: the user's scans and comments, newest first, live.
@MainActor @Observable
public final class FeedViewModel {
    public private(set) var items: [FeedItem] = []
    public private(set) var progress: Progress = .idle
    private let useCases: UseCases
    private var watcher: Task<Void, Never>?
    public static let limit = 50

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public func start() async {
        guard watcher == nil else { return }
        guard let uid = await useCases.repositories.session.currentUserID() else {
            progress = .failed(.notSignedIn)
            return
        }
        progress = .working
        let stream = useCases.repositories.feeds.newest(of: uid, limit: Self.limit)
        watcher = Task { [weak self] in
            do {
                for try await items in stream {
                    self?.items = items
                    self?.progress = .done
                }
            } catch {
                self?.progress = .failed(ErrorMapping.app(error))
            }
        }
    }

    public func stop() {
        watcher?.cancel()
        watcher = nil
    }
}

/// Menu: who is signed in, and signing out.
@MainActor @Observable
public final class MenuViewModel {
    public private(set) var profile: UserProfile?
    public private(set) var signedOut = false
    private let useCases: UseCases

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public func load() async {
        guard let uid = await useCases.repositories.session.currentUserID() else { return }
        profile = try? await useCases.repositories.profiles.profile(of: uid)
    }

    public func signOut() async {
        await useCases.repositories.session.signOut()
        profile = nil
        signedOut = true
    }
}

/// Housekeeping: display name and avatar.
@MainActor @Observable
public final class HousekeepingViewModel {
    public var displayName = ""
    public var avatar: Data?
    public private(set) var profile: UserProfile?
    public private(set) var progress: Progress = .idle
    private let useCases: UseCases

    public init(_ useCases: UseCases) { self.useCases = useCases }

    public func load() async {
        guard let uid = await useCases.repositories.session.currentUserID() else {
            progress = .failed(.notSignedIn)
            return
        }
        profile = try? await useCases.repositories.profiles.profile(of: uid)
        displayName = profile?.displayName ?? ""
    }

    public func save() async {
        progress = .working
        do {
            profile = try await useCases.updateProfile(displayName: displayName, avatar: avatar)
            avatar = nil
            progress = .done
        } catch {
            progress = .failed(error)
        }
    }
}
