import HearthFunctions
import Logging
import Synchronization

extension Serve {
    /// The outside services for server functions (geocoder, smart home, weather), from the checked settings; says at
    /// start which are on (never their secrets) and why the geocoder is off when it is. A server without functions (the
    /// stock `hearth`) checks them but says nothing.
    static func outsideServices(_ settings: Settings, logger: Logger) throws -> OutsideServices {
        let hasFunctions = !HearthCommand.registered.withLock { $0 }.isEmpty
        let configuration: OutsideServicesConfiguration
        do {
            configuration = try settings.services.configuration()
            try configuration.validate()
        } catch {
            throw fail("\(error)", .badConfiguration)
        }
        if hasFunctions {
            if !configuration.isEmpty { logger.info("outside services for functions: \(configuration)") }
            if configuration.nominatim == nil, let notice = settings.services.geocoderNotice { logger.notice("\(notice)") }
        }
        return OutsideServices(configuration: configuration)
    }
}
