import ArgumentParser
import Foundation
@testable import HearthCommand
import HearthCore
import HearthFunctions
import HearthTesting
import Testing

/// How `hearth serve` configures the outside services of functions: flags > `HEARTH_*` > the config file's
/// `services`, secrets from files, and bad settings refused at start.
@Suite("OutsideServicesSettings", .timeLimit(.minutes(1)))
struct OutsideServicesSettingsTests {
    static func write(_ text: String, _ name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func nothingConfiguredMeansNoServicesAndANoticeAboutTheGeocoder() throws {
        let settings = Settings.OutsideServicesSettings()
        let configuration = try settings.configuration()
        #expect(configuration.isEmpty && configuration.description == "none")
        #expect(settings.geocoderNotice?.contains("--geocoder-user-agent") == true)
    }

    @Test func theConfigFileTheEnvironmentAndTheFlagsInThatOrder() throws {
        let folder = temporaryDataFolder()
        let tokenFile = try Self.write("file-token\n", "openhab-token", in: folder)
        let keyFile = try Self.write("  file-key \n", "weather-key", in: folder)
        let config = try Self.write(
            """
            {"services": {
              "geocoder": {"baseUrl": "https://geo.example/", "userAgent": "Stays/1 (ops@example.com)"},
              "openhab": {"baseUrl": "http://openhab.local:8080", "tokenFile": "\(tokenFile)"},
              "openweather": {"apiKey": "config-key"}
            }}
            """, "hearth.json", in: folder)

        // The file alone.
        var settings = Settings()
        try settings.apply(file: config)
        var c = try settings.services.configuration()
        #expect(c.nominatim == .init(baseURL: "https://geo.example", userAgent: "Stays/1 (ops@example.com)"))
        #expect(c.openHAB == .init(baseURL: "http://openhab.local:8080", token: "file-token"))
        #expect(c.openWeather == .init(baseURL: "https://api.openweathermap.org", apiKey: "config-key"))

        // The environment over the file, an inline secret over the file's secret file and the other way round.
        try settings.apply(environment: [
            "HEARTH_GEOCODER_USER_AGENT": "Env/2", "HEARTH_OPENHAB_TOKEN": "env-token", "HEARTH_OPENWEATHER_KEY_FILE": keyFile,
            "HEARTH_OPENWEATHER_URL": "http://127.0.0.1:9999",
        ])
        c = try settings.services.configuration()
        #expect(c.nominatim?.userAgent == "Env/2" && c.nominatim?.baseURL == "https://geo.example")
        #expect(c.openHAB?.token == "env-token")
        #expect(c.openWeather == .init(baseURL: "http://127.0.0.1:9999", apiKey: "file-key"))
        // Both forms in one layer: the file wins.
        var both = Settings.OutsideServicesSettings()
        both.apply(environment: ["HEARTH_OPENHAB_URL": "http://h", "HEARTH_OPENHAB_TOKEN": "inline", "HEARTH_OPENHAB_TOKEN_FILE": tokenFile])
        #expect(try both.configuration().openHAB?.token == "file-token")

        // The flags over everything (Serve resolves the file, then the environment, then its flags).
        let flagKey = try Self.write("flag-key", "flag-key", in: folder)
        let serve = try Serve.parse([
            "--config", config, "--geocoder-url", "http://geo.internal:8088", "--openhab-url", "http://10.0.0.5:8080/",
            "--openhab-token-file", tokenFile, "--openweather-url", "http://weather.internal", "--openweather-key-file", flagKey,
        ])
        c = try serve.resolve().services.configuration()
        #expect(c.nominatim == .init(baseURL: "http://geo.internal:8088", userAgent: "Stays/1 (ops@example.com)"))
        #expect(c.openHAB == .init(baseURL: "http://10.0.0.5:8080", token: "file-token"))
        #expect(c.openWeather == .init(baseURL: "http://weather.internal", apiKey: "flag-key"))
        // The description names the services, not their secrets.
        #expect(!c.description.contains("file-token") && !c.description.contains("flag-key") && c.description.contains("with a token"))
    }

    @Test func whenEachServiceIsOn() throws {
        // A user agent alone: the public Nominatim.
        var s = Settings.OutsideServicesSettings()
        s.geocoderUserAgent = "Stays/1"
        #expect(try s.configuration().nominatim == .init(baseURL: "https://nominatim.openstreetmap.org", userAgent: "Stays/1"))
        #expect(s.geocoderNotice == nil)
        // A URL alone: that geocoder, with Hearth's user agent.
        s = Settings.OutsideServicesSettings()
        s.geocoderURL = "http://127.0.0.1:8080"
        #expect(try s.configuration().nominatim?.userAgent == Settings.OutsideServicesSettings.defaultUserAgent)
        // openHAB with its URL, no token needed; OpenWeather with its key.
        s = Settings.OutsideServicesSettings()
        s.openHABURL = "http://openhab:8080"
        s.openWeatherKey = "k"
        let c = try s.configuration()
        #expect(c.openHAB == .init(baseURL: "http://openhab:8080", token: nil) && c.openWeather?.apiKey == "k" && c.nominatim == nil)
        try c.validate()
    }

    @Test func badSettingsAreRefusedWithTheReason() throws {
        let folder = temporaryDataFolder()
        func refusal(_ change: (inout Settings.OutsideServicesSettings) -> Void) -> String {
            var s = Settings.OutsideServicesSettings()
            change(&s)
            do {
                _ = try s.configuration()
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal { $0.geocoderURL = "ftp://geo.example" }.contains("the geocoder URL"))
        #expect(refusal { $0.openHABURL = "openhab.local:8080" }.contains("the openHAB URL"))
        #expect(refusal { $0.openWeatherURL = "http://w.example?x=1"; $0.openWeatherKey = "k" }.contains("the OpenWeather URL"))
        #expect(refusal { $0.openHABToken = "t" }.contains("needs the openHAB server's URL"))
        #expect(refusal { $0.openWeatherURL = "http://w.example" }.contains("needs an API key"))
        #expect(refusal { $0.setOpenWeatherKeyFile(folder + "/missing") }.contains("cannot read the OpenWeather API key file"))
        let empty = try Self.write("\n", "empty", in: folder)
        #expect(refusal { $0.openHABURL = "http://h"; $0.setOpenHABTokenFile(empty) }.contains("is empty"))

        for (json, setting) in [
            (#"{"services": {"openhab": {"password": "x"}}}"#, "services.openhab.password"),
            (#"{"services": {"geocoder": "https://geo"}}"#, "services.geocoder"),
            (#"{"services": {"openweather": {"apiKey": 5}}}"#, "services.openweather.apiKey"),
            (#"{"services": {"weather": {}}}"#, "services.weather"),
        ] {
            let file = try Self.write(json, "config.json", in: folder)
            var settings = Settings()
            #expect(throws: Settings.Failure.self) { try settings.apply(file: file) }
            do { try settings.apply(file: file) } catch { #expect("\(error)".contains("\"\(setting)\""), "\(error)") }
        }
    }

    /// `hearth serve` stops at start on a bad service URL, saying which.
    @Test func hearthServeRefusesABadServiceURL() async throws {
        let refused = try HearthProcess(["serve", "--port", "0", "--data", temporaryDataFolder(), "--dev", "--openhab-url", "ftp://openhab"])
        #expect(try await refused.exitCode() != 0)
        #expect(refused.stderrText.contains("openHAB URL"), "\(refused.stderrText)")
    }
}
