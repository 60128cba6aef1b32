import Foundation
import Observation

/// My couches: the couches the user hosts.
@MainActor @Observable
public final class MyCouchesViewModel {
    /// The user's couches, newest first.
    public private(set) var couches: [Couch] = []
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The screen over `useCases`.
    public init(_ useCases: UseCases) { self.useCases = useCases }

    /// Loads the user's couches.
    public func load() async {
        state = .working
        do {
            couches = try await useCases.myCouches()
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}

/// New couch (or editing one): the form with its checks, the address geocoded, and photos uploaded after saving.
@MainActor @Observable
public final class NewCouchViewModel {
    /// The form's fields, to show a problem next to its field.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// ``NewCouchViewModel/title``.
        case title
        /// ``NewCouchViewModel/description``.
        case description
        /// ``NewCouchViewModel/address``.
        case address
        /// ``NewCouchViewModel/capacity``.
        case capacity
        /// ``NewCouchViewModel/photos``.
        case photos
    }

    /// A short title.
    public var title = ""
    /// More words.
    public var description = ""
    /// The address; editing it forgets the geocoded place.
    public var address = "" {
        didSet { if address != oldValue { place = nil } }
    }
    /// How many guests it sleeps.
    public var capacity = 1
    /// JPEG photos to upload when saving.
    public private(set) var photos: [Data] = []
    /// The geocoded address, once found.
    public private(set) var place: Place?
    /// The geocoding's progress.
    public private(set) var geocodeState: ActionState = .idle
    /// The save's progress.
    public private(set) var state: ActionState = .idle
    /// The couch saved (its id), once saved.
    public private(set) var couchID: String?
    /// Photos uploaded by the save.
    public private(set) var uploaded: [CouchPhoto] = []
    /// Photos that did not upload (the couch is saved anyway; they can be added again).
    public private(set) var failedPhotos = 0
    private let useCases: UseCases

    /// A new couch form, or the form of `existing` to edit it.
    public init(_ useCases: UseCases, editing existing: Couch? = nil) {
        self.useCases = useCases
        if let existing {
            couchID = existing.id
            title = existing.title
            description = existing.description
            address = existing.address
            capacity = existing.capacity
            place = existing.draft.place
        }
    }

    /// What is wrong, by field (empty when the form can be saved; the address is geocoded when saving).
    public var problems: [Field: String] {
        var problems: [Field: String] = [:]
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if title.isEmpty || title.utf16.count > 100 { problems[.title] = "Enter a title of at most 100 characters." }
        if description.utf16.count > 5000 { problems[.description] = "The description is at most 5,000 characters." }
        let address = address.trimmingCharacters(in: .whitespacesAndNewlines)
        if address.isEmpty || address.utf16.count > 300 { problems[.address] = "Enter the address (at most 300 characters)." }
        if !(1...50).contains(capacity) { problems[.capacity] = "A couch sleeps 1 to 50 guests." }
        if photos.contains(where: { !UseCases.isJPEG($0) || $0.count >= UseCases.maxPhotoBytes }) {
            problems[.photos] = "Photos must be JPEG images smaller than 10 MB."
        }
        return problems
    }

    /// Adds a photo to upload (checked by ``problems``).
    public func addPhoto(_ jpeg: Data) { photos.append(jpeg) }

    /// Removes the photo at `index`.
    public func removePhoto(at index: Int) {
        if photos.indices.contains(index) { photos.remove(at: index) }
    }

    /// Geocodes the address (to show it on the map before saving).
    public func geocodeAddress() async {
        let text = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            geocodeState = .failed(.invalidInput("Enter the address."))
            return
        }
        geocodeState = .working
        do {
            let found = try await useCases.repositories.geocoder.geocode(text)
            guard text == address.trimmingCharacters(in: .whitespacesAndNewlines) else { return }
            place = found
            geocodeState = .done
        } catch {
            geocodeState = .failed(error)
        }
    }

    /// Saves: checks the form, geocodes the address if needed, creates (or updates) the couch, then uploads the
    /// photos one by one.
    public func save() async {
        guard state != .working else { return }
        if let first = Field.allCases.compactMap({ problems[$0] }).first {
            state = .failed(.invalidInput(first))
            return
        }
        state = .working
        if place == nil { await geocodeAddress() }
        guard let place else {
            if case .failed(let error) = geocodeState { state = .failed(error) } else { state = .failed(.addressNotFound) }
            return
        }
        let draft = CouchDraft(
            title: title.trimmingCharacters(in: .whitespacesAndNewlines), description: description.trimmingCharacters(in: .whitespacesAndNewlines),
            place: place, capacity: capacity)
        do {
            if let couchID {
                try await useCases.repositories.couches.update(couchID, with: draft)
            } else {
                _ = try await useCases.signedIn()
                couchID = try await useCases.repositories.couches.create(draft)
            }
        } catch {
            state = .failed(error)
            return
        }
        guard let couchID else { return }
        var left: [Data] = []
        for photo in photos {
            do {
                uploaded.append(try await useCases.addPhoto(photo, to: couchID))
            } catch {
                left.append(photo)
            }
        }
        photos = left
        failedPhotos = left.count
        state = .done
    }
}
