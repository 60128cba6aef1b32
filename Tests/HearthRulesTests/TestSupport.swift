/// Lets other tests run between rounds of a long synchronous loop.
///
/// Swift Testing starts every test at once on the cooperative pool, which has one thread per core.
/// A fuzz loop that never suspends holds its thread for its whole run, and on a 2-core machine two
/// of them stall every async test (live servers, SDK waits) for seconds at the start of a run.
func yieldNowAndThen(_ round: Int) async {
    if round % 50 == 49 { await Task.yield() }
}
