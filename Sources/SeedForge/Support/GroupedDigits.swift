/// An integer with its thousands separated by commas, the same on every machine (no
/// locale): `206352` → `206,352`. Used by the HTML report and the progress line.
func groupedDigits(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
        out.append(digit)
    }
    return value < 0 ? "-" + out : out
}
