import Foundation
import HearthGeo
import Observation

/// Trips: couches on a map. Moving the map searches around its center; a city search geocodes the text, moves the
/// map there and lists the city's couches. A failed search raises an alert.
@MainActor @Observable
public final class TripsViewModel {
    /// The region shown.
    public private(set) var region: MapRegion
    /// The couches shown, nearest to the region's (or searched place's) center first.
    public private(set) var couches: [NearbyCouch] = []
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    /// What the search field holds.
    public var searchText = ""
    /// The place the last city search found.
    public private(set) var place: Place?
    /// An error to show as an alert (a failed city search); nil when none.
    public private(set) var alert: AppError?
    private let useCases: UseCases
    private var generation = 0

    /// The map around `region` over `useCases`.
    public init(_ useCases: UseCases, region: MapRegion) {
        self.useCases = useCases
        self.region = region
    }

    /// Shows `region`: its couches replace the list (an answer to an older move is dropped).
    public func show(_ region: MapRegion) async {
        self.region = region
        generation += 1
        let mine = generation
        state = .working
        do {
            let found = try await useCases.couches(in: region)
            guard mine == generation else { return }
            couches = found
            place = nil
            state = .done
        } catch {
            guard mine == generation else { return }
            state = .failed(error)
        }
    }

    /// Loads the current region again.
    public func reload() async { await show(region) }

    /// Searches ``searchText``: moves the map to the place and lists its city's couches; failure (no such place,
    /// the geocoder down, offline) raises ``alert`` and leaves the map as it was. A new search closes an old alert.
    public func searchCity() async {
        alert = nil
        generation += 1
        let mine = generation
        state = .working
        do {
            let result = try await useCases.searchCity(searchText)
            guard mine == generation else { return }
            place = result.place
            region = MapRegion(center: result.place.location, radiusMeters: MapRegion.cityRadiusMeters)
            couches = result.couches
            state = .done
        } catch {
            guard mine == generation else { return }
            alert = error
            state = .failed(error)
        }
    }

    /// Closes the alert.
    public func dismissAlert() { alert = nil }
}
