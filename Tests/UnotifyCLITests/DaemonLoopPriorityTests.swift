import Foundation
import NotificationDaemon
import Testing

/// `unotifyd --loop-realtime-priority`: the delivery loop's thread under `SCHED_FIFO` (docs/benchmarks.md, "The late
/// tail: what a late delivery waits for").
@Suite("unotifyd loop priority")
struct DaemonLoopPriorityTests {
    @Test("--loop-realtime-priority takes a SCHED_FIFO priority from 1 to 99")
    func parsing() throws {
        _ = try DaemonOptions.parse(["--loop-realtime-priority", "10"])
        for bad in ["0", "100", "-3", "high"] {
            #expect(throws: (any Error).self, "\(bad)") { try DaemonOptions.parse(["--loop-realtime-priority", bad]) }
        }
    }
}
