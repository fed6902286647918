// The core's models decode through the one JSON reader, and its API speaks `JSONValue`:
// re-exported so that every user of the core sees the same `JSONValue` without a second import.
@_exported import CheckoutJSON
