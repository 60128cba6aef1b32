import HearthCommand
import HearthFunctions

// An app team's own server: the stock `hearth` plus its functions. It takes exactly the flags,
// environment variables and data folder of `hearth serve`:
//
//     swift run hearth-functions-example serve --dev
//
// Each file registers the functions of one reference app (ConsoleDemo: two for the console's browser test).
var functions = Functions()
do {
    try Rewards.register(in: &functions)
    try Stays.register(in: &functions)
    try Gifts.register(in: &functions)
    try BarcodeComments.register(in: &functions)
    try ConsoleDemo.register(in: &functions)
} catch {
    fatalError("invalid function registration: \(error)")
}
await HearthCommand.main(functions: functions)
