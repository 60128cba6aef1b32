import Foundation
@testable import HearthCommand
import Testing


/// How a backup is held back: the rate syntax, the pacer's sleeps on a fake clock, and the settings' checks.
@Suite struct BackupPaceTests {
    @Test func ratesAreBytesPerSecondWithAUnit() throws {
        #expect(try BackupPace.rate("64M") == 64 << 20)
        #expect(try BackupPace.rate("1g") == 1 << 30)
        #expect(try BackupPace.rate("500K") == 500 << 10)
        #expect(try BackupPace.rate("32MiB") == 32 << 20)
        #expect(try BackupPace.rate("2gb") == 2 << 30)
        #expect(try BackupPace.rate("1000") == 1000)
        #expect(try BackupPace.rate("0") == nil)
        #expect(try BackupPace.rate("unlimited") == nil)
        for bad in ["", "fast", "-5M", "12T", "M", "99999999999G"] {
            #expect(throws: BackupRepository.Failure.self, "\(bad)") { try BackupPace.rate(bad) }
        }
    }

    @Test func thePacerSleepsUntilTheRateAllowsWhatWasRead() {
        var now: UInt64 = 1_000
        var slept: [UInt64] = []
        let pacer = BackupPacer(BackupPace(bytesPerSecond: 1 << 20), clock: { now }, sleep: { slept.append($0); now += $0 })
        pacer.read(1 << 20)  // 1 MiB at 1 MiB/s: due at 1 s, none has passed
        #expect(slept == [1_000_000_000])
        now += 3_000_000_000  // slow work: 3 s more, the rate is not reached again for 2 MiB
        pacer.read(1 << 20)
        pacer.read(1 << 20)
        #expect(slept == [1_000_000_000])
        pacer.read(3 << 19)  // 4.5 MiB due at 4.5 s, 4 s have passed
        #expect(slept == [1_000_000_000, 500_000_000])
    }

    @Test func withoutALimitThePacerNeverSleeps() {
        var slept = 0
        let pacer = BackupPacer(BackupPace(bytesPerSecond: nil), clock: { 0 }, sleep: { _ in slept += 1 })
        for _ in 0..<100 { pacer.read(1 << 30) }
        #expect(slept == 0)
    }

    @Test func scheduleSettingsCheckTheRate() throws {
        var settings = BackupScheduleSettings()
        settings.every = "1h"
        #expect(try settings.checkedPace().bytesPerSecond == 64 << 20)
        settings.maxRate = "32M"
        #expect(try settings.checkedPace().bytesPerSecond == 32 << 20)
        settings.maxRate = "quick"
        #expect(throws: Settings.Failure.self) { try settings.checkedInterval() }
        try settings.apply(environment: ["HEARTH_BACKUP_MAX_RATE": "0"])
        #expect(try settings.checkedPace().bytesPerSecond == nil)
    }

}
