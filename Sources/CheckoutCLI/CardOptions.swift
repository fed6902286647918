/// The card-data options `card validate`, `pay` and `vault add` share: `--number`, `--expiry`,
/// `--cvv` and `--name`, read the same way everywhere.
///
/// The values are only held for the run; nothing here prints or stores them.
struct CardOptions {
    /// `--number`: the card number as typed (spaces and dashes allowed); `-` reads it from
    /// standard input (see `readingStandardInput()`).
    var number: String?
    /// `--expiry`: the expiry as typed.
    var expiry: String?
    /// `--cvv`: the security code; `-` reads it from standard input.
    var cvv: String?
    /// `--name`: the cardholder name.
    var name: String?

    /// The options with every `-` value read from standard input (the number first, then the
    /// security code: one line each), with a prompt and no echo on a terminal. Call it once the
    /// command line has been checked, so a usage error never waits for input.
    func readingStandardInput() throws -> CardOptions {
        var resolved = self
        if number == SecretInput.marker {
            resolved.number = try SecretInput.readLine(prompt: "Card number: ", option: "--number")
        }
        if cvv == SecretInput.marker {
            resolved.cvv = try SecretInput.readLine(prompt: "Security code: ", option: "--cvv")
        }
        return resolved
    }

    /// The four options' declarations, with each command's help text (`--number N|-`, `--expiry E`
    /// unless `expiryValue` names it otherwise, `--cvv C|-`, `--name S`).
    static func specs(number: [String], expiry: [String], cvv: [String], name: [String], expiryValue: String = "E") -> [OptionSpec] {
        [
            OptionSpec(name: "--number", value: "N|-", help: number),
            OptionSpec(name: "--expiry", value: expiryValue, help: expiry),
            OptionSpec(name: "--cvv", value: "C|-", help: cvv),
            OptionSpec(name: "--name", value: "S", help: name),
        ]
    }

    /// The four options of a command line parsed with `specs` declared.
    static func from(_ parsed: ParsedCommandLine) -> CardOptions {
        CardOptions(number: parsed.value("--number"), expiry: parsed.value("--expiry"), cvv: parsed.value("--cvv"),
                  name: parsed.value("--name"))
    }
}
