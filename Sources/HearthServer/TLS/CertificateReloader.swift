import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the TLS certificate and key each time the process gets SIGHUP, until graceful shutdown.
/// While it runs SIGHUP is caught (not the default action, which ends the process), so a reload
/// never stops the server; the service group's shutdown signals stay SIGTERM and SIGINT.
struct CertificateReloader: Service {
    /// What is reloaded.
    let certificates: TLSCertificates
    /// Where reloads and failed reloads are reported.
    let logger: Logger

    /// Waits for SIGHUP and reloads, until the service group shuts down.
    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                logger.info("SIGHUP: reloading the TLS certificate", metadata: ["hearth.tls.cert": "\(certificates.certificateFile)"])
                certificates.reload(logger: logger)
            }
        }
    }
}
