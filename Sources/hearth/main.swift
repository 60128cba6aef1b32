import HearthCommand

// The stock server: no functions registered. App teams write the same two lines with their own
// `Functions` (see Examples/Functions).
await HearthCommand.main()
