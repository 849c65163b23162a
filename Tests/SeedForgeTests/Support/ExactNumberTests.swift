import Testing

@testable import SeedForge

/// Exact decimal arithmetic behind means, sums and `decimals:` rounding (issue 18).
/// Expected values from Python's decimal module, e.g.
/// `python3 -c "from decimal import *; print(Decimal('70.5')/20)"` → 3.525 and
/// `python3 -c "from decimal import *; print((Decimal('70.5')/20).quantize(Decimal('0.01'), ROUND_HALF_UP))"` → 3.53.
@Suite("Support: exact numbers")
struct ExactNumberTests {
    func exact(_ text: String) -> ExactNumber { ExactNumber(text: text)! }

    @Test func parsesAndWritesCanonicalText() {
        #expect(exact("051.770").text == "51.77")
        #expect(exact("-0.0").text == "0")
        #expect(exact("1e-05").text == "0.00001")
        #expect(exact("1.5e+3").text == "1500")
        #expect(exact("-0.25").text == "-0.25")
        #expect(ExactNumber(text: "1.2.3") == nil)
        #expect(ExactNumber(text: "") == nil)
        #expect(ExactNumber(text: "12a") == nil)
        #expect(ExactNumber(.double(3.525))?.text == "3.525")
        #expect(ExactNumber(.double(0.1))?.text == "0.1")
        #expect(ExactNumber(.int(-7))?.text == "-7")
        #expect(ExactNumber(.decimal("54.00"))?.text == "54")
        #expect(ExactNumber(.double(.nan)) == nil)
        #expect(ExactNumber(.string("1")) == nil)
    }

    @Test func sumsAreExact() throws {
        // Binary: 0.1 + 0.2 = 0.30000000000000004; 1.005 + 1.67 = 2.6749999999999998.
        #expect(exact("0.1").adding(exact("0.2"))?.text == "0.3")
        #expect(exact("1.005").adding(exact("1.67"))?.text == "2.675")
        #expect(exact("1.005").adding(exact("1.67"))?.rounded(places: 2)?.text == "2.68")
        #expect(exact("1e30").adding(exact("1e-10")) == nil, "38 digits do not fit: callers fall back to doubles")
    }

    @Test func meansRoundHalfAwayFromZeroExactly() {
        // python3: (Decimal('70.5')/20).quantize(Decimal('0.01'), ROUND_HALF_UP) = 3.53
        #expect(exact("70.5").divided(by: 20, places: 2)?.text == "3.53")
        // python3: (Decimal('-70.5')/20).quantize(Decimal('0.01'), ROUND_HALF_UP) = -3.53
        #expect(exact("-70.5").divided(by: 20, places: 2)?.text == "-3.53")
        // python3: (Decimal('29.5')/7).quantize(Decimal('0.01'), ROUND_HALF_UP) = 4.21
        #expect(exact("29.5").divided(by: 7, places: 2)?.text == "4.21")
        // python3: (Decimal('2')/3).quantize(Decimal('1'), ROUND_HALF_UP) = 1
        #expect(exact("2").divided(by: 3, places: 0)?.text == "1")
        #expect(exact("0.0004").divided(by: 1, places: 3)?.text == "0")
        #expect(exact("0.0005").divided(by: 1, places: 3)?.text == "0.001")
        #expect(exact("1e-60").divided(by: 1, places: 2)?.text == "0")
    }

    @Test func integersStayIntegers() {
        #expect(exact("436").int64 == 436)
        #expect(exact("4.0").int64 == 4)
        #expect(exact("4.5").int64 == nil)
        #expect(exact("1e20").int64 == nil)
    }

    @Test func roundingADoubleUsesItsShortestDigits() {
        // A distance of 1.005 km is 1.00499999… in binary: written 1.005, rounded 1.01
        // (python3: Decimal('1.005').quantize(Decimal('0.01'), ROUND_HALF_UP) = 1.01).
        #expect(DecimalPlaces(2).roundExactly(1.005) == 1.01)
        #expect(DecimalPlaces(2).round(1.005) == 1.0, "the binary rounding this replaces")
        #expect(DecimalPlaces(3).roundExactly(1.0005) == 1.001)
        #expect(DecimalPlaces(2).roundExactly(-2.675) == -2.68)
        #expect(DecimalPlaces(2).roundExactly(.greatestFiniteMagnitude) == .greatestFiniteMagnitude)
    }

    @Test func totalsFallBackToDoublesWhenDigitsDoNotFit() {
        var total = NumberTotal()
        total.add(.double(1e300))
        total.add(.double(1))
        #expect(total.count == 2)
        #expect(total.sum(DecimalPlaces(2)) == 1e300)
        #expect(total.mean(nil) == 5e299)
        var skipped = NumberTotal()
        let added = skipped.add(.string("4"))
        #expect(!added)
        #expect(skipped.mean(DecimalPlaces(2)) == nil)
    }

    /// Totals of parts of the values (shards) added up give the total of all, exactly,
    /// whatever the grouping, while the magnitudes' sum fits: the means and sums a sharded
    /// `group-stats` writes.
    @Test func totalsOfPartsAddUpToTheTotalOfAllWhileOrderFree() throws {
        let values: [Value] = [.double(4.8), .int(-3), .decimal("1.005"), .double(0.1), .double(0.2), .int(7)]
        var all = NumberTotal()
        for value in values { all.add(value) }
        for cut in 0...values.count {
            var head = NumberTotal()
            var tail = NumberTotal()
            for value in values[..<cut] { head.add(value) }
            for value in values[cut...] { tail.add(value) }
            tail.add(head)
            #expect(tail.isOrderFree && tail.count == all.count)
            #expect(tail.exact == all.exact, "cut at \(cut)")
            #expect(tail.mean(DecimalPlaces(2)) == all.mean(DecimalPlaces(2)))
        }
        #expect(try #require(all.exact).text == "10.105")
        #expect(all.isExact(places: DecimalPlaces(2)))
        // A value whose exact digits do not fit beside the others: not order-free (a plain
        // run sums it as a double, in input order).
        var huge = NumberTotal()
        huge.add(.double(0.5))
        huge.add(.double(1e300))
        #expect(!huge.isOrderFree)
        var parts = NumberTotal()
        parts.add(.double(0.5))
        var other = NumberTotal()
        other.add(.double(1e300))
        #expect(!other.isOrderFree, "1e300's digits do not fit beside the sum's units either")
        #expect(parts.isOrderFree)
        parts.add(other)
        #expect(!parts.isOrderFree)
        // Magnitudes that do not fit 38 digits, though the sum would (1e37 - 1e37 + ...).
        var near = NumberTotal()
        for value: Value in [
            .decimal("90000000000000000000000000000000000000"), .decimal("-90000000000000000000000000000000000000"),
        ] {
            near.add(value)
        }
        #expect(!near.isOrderFree)
    }
}
