import Synchronization

/// Push notifications sent by this process, by outcome: one relaxed atomic add per device, read by `/metrics`
/// (`hearth_push_notifications_total`).
public enum PushMetrics {
    /// What became of a notification to one device (the `outcome` label).
    public enum Outcome: Int, CaseIterable, Sendable {
        /// The provider took it.
        case delivered
        /// The token was invalid; its registration was removed.
        case tokenRemoved
        /// A passing failure, to be retried.
        case retryable
        /// Refused for good (configuration, message).
        case rejected

        /// The label value.
        public var label: String {
            switch self {
            case .delivered: "delivered"
            case .tokenRemoved: "token_removed"
            case .retryable: "retryable"
            case .rejected: "rejected"
            }
        }
    }

    private static let counts: InlineArray<4, Atomic<Int>> = InlineArray { _ in Atomic(0) }

    /// Adds one send's devices.
    static func record(_ report: PushReport) {
        add(.delivered, report.delivered)
        add(.tokenRemoved, report.removed.count)
        add(.retryable, report.retryable.count)
        add(.rejected, report.rejected.count)
    }

    private static func add(_ outcome: Outcome, _ n: Int) {
        if n > 0 { counts[outcome.rawValue].add(n, ordering: .relaxed) }
    }

    /// Devices with `outcome` since the process started.
    public static func total(_ outcome: Outcome) -> Int { counts[outcome.rawValue].load(ordering: .relaxed) }
}
