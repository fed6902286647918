import Foundation

/// The files a live page loads from its own origin: the shipped font's faces and one small script.
///
/// The script only helps while typing: it groups the card number's digits, inserts the expiry's slash, keeps
/// the security code to digits, and marks a field invalid (`aria-invalid`, the field's own message from
/// `data-invalid`) when what was typed cannot be right (a card number failing the Luhn check, a past or
/// impossible expiry). It never sends anything anywhere: the form posts as it would without it.
public enum LiveAssets {
    /// The font faces by file name (`inter-400.woff2`, `inter-600.woff2`).
    public static let fonts: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for face in EmbeddedFont.faces {
            if let data = Data(base64Encoded: face.woff2Base64) { files["inter-\(face.weight).woff2"] = Array(data) }
        }
        return files
    }()

    /// The page script's name.
    public static let scriptName = "checkout.js"

    /// The page script.
    public static let script = #"""
        "use strict";
        (function () {
          function digits(s) { return s.replace(/\D/g, ""); }
          function luhn(d) {
            var sum = 0, twice = false;
            for (var i = d.length - 1; i >= 0; i--) {
              var n = d.charCodeAt(i) - 48;
              if (twice) { n *= 2; if (n > 9) n -= 9; }
              sum += n; twice = !twice;
            }
            return sum % 10 === 0;
          }
          function groups(d) {
            var sizes = /^3[47]/.test(d) ? [4, 6, 5] : [4, 4, 4, 4, 3];
            var out = [], at = 0;
            for (var i = 0; i < sizes.length && at < d.length; i++) { out.push(d.substr(at, sizes[i])); at += sizes[i]; }
            return out.join(" ");
          }
          function mark(input, bad) {
            input.setAttribute("aria-invalid", bad ? "true" : "false");
            input.setCustomValidity(bad ? (input.getAttribute("data-invalid") || "") : "");
          }
          function expiryBad(v) {
            var m = /^(\d{2})\s*\/\s*(\d{2}|\d{4})$/.exec(v);
            if (!m) return true;
            var month = +m[1], year = +m[2];
            if (year < 100) year += 2000;
            var now = new Date();
            return month < 1 || month > 12 || year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1);
          }
          document.addEventListener("input", function (event) {
            var input = event.target;
            if (!input || !input.getAttribute) return;
            var kind = input.getAttribute("autocomplete");
            if (kind === "cc-number") {
              var d = digits(input.value).slice(0, 19);
              input.value = groups(d);
              mark(input, d.length >= 12 && (d.length === 19 || d.length === 16 || d.length === 15) && !luhn(d));
            } else if (kind === "cc-exp") {
              var e = digits(input.value).slice(0, 4);
              input.value = e.length > 2 ? e.slice(0, 2) + "/" + e.slice(2) : e;
              if (e.length === 4) mark(input, expiryBad(input.value)); else mark(input, false);
            } else if (kind === "cc-csc") {
              input.value = digits(input.value).slice(0, 4);
            }
          });
          document.addEventListener("change", function (event) {
            var input = event.target;
            if (!input || !input.getAttribute) return;
            var kind = input.getAttribute("autocomplete");
            if (kind === "cc-number") {
              var d = digits(input.value);
              mark(input, d.length > 0 && (d.length < 12 || !luhn(d)));
            } else if (kind === "cc-exp" && input.value.length > 0) {
              mark(input, expiryBad(input.value));
            }
          });
        })();
        """#
}
