import Foundation

/// Reads a card number or security code from standard input instead of the command line, where
/// it would show in `ps`, `/proc/*/cmdline` and the shell's history.
///
/// On a terminal it prompts on stderr and turns echo off while the shopper types; otherwise (a
/// pipe, a file) it reads the next line as it is.
enum SecretInput {
    /// The option value that means "read it from standard input".
    static let marker = "-"

    /// The next line of standard input (without its line break), after `prompt` on a terminal.
    static func readLine(prompt: String, option: String) throws -> String {
        let isTerminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        var echoOff = false
        if isTerminal {
            // Echo goes off before the prompt appears, so nothing typed after it is echoed;
            // TCSANOW keeps what was typed ahead.
            if tcgetattr(STDIN_FILENO, &saved) == 0 {
                var quiet = saved
                quiet.c_lflag &= ~tcflag_t(ECHO)
                echoOff = tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0
            }
            FileHandle.standardError.write(Data(prompt.utf8))
        }
        defer {
            if echoOff {
                var restore = saved
                _ = tcsetattr(STDIN_FILENO, TCSANOW, &restore)
            }
            if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
        }
        guard let line = Swift.readLine(strippingNewline: true) else {
            throw UsageError(message: "\(option) -: standard input ended before the value was read")
        }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }
}
