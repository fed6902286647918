import CBenchBaselines
import CheckoutKit
import Foundation

/// `checkout-bench [--quick] [--report-only] [--json FILE] [--only SECTION,...] [--config-dir DIR]`: every figure
/// against a baseline measured in the same run. Build in release: `swift run -c release checkout-bench`.
///
/// The main thread only waits for `BenchMain.run` (a detached task) and exits with its status: it never
/// parks in `dispatch_main`, which valgrind (3.19, Debian 12) cannot follow, so `scripts/bench-instructions.sh`
/// can count the probes' instructions under callgrind. The main thread is not a task: no task waits here.
// Line-buffered even into a file or pipe, so a long run shows its progress.
import Dispatch

let finished = DispatchSemaphore(value: 0)
Task.detached {
    await BenchMain.run()
    finished.signal()
}
finished.wait()
exit(0)
