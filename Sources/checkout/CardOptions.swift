/// The card-data options `card validate`, `pay` and `vault add` share: `--number`, `--expiry`,
/// `--cvv` and `--name`, read the same way everywhere.
///
/// The values are only held for the run; nothing here prints or stores them.
struct CardOptions {
    /// `--number`: the card number as typed (spaces and dashes allowed).
    var number: String?
    /// `--expiry`: the expiry as typed.
    var expiry: String?
    /// `--cvv`: the security code.
    var cvv: String?
    /// `--name`: the cardholder name.
    var name: String?

    /// True when none of the four options was given.
    var isEmpty: Bool { number == nil && expiry == nil && cvv == nil && name == nil }

    /// Consumes the four options (each at most once).
    static func parse(_ arguments: inout Arguments) throws -> CardOptions {
        CardOptions(number: try arguments.option("--number"), expiry: try arguments.option("--expiry"),
                    cvv: try arguments.option("--cvv"), name: try arguments.option("--name"))
    }
}
