import Foundation

/// Nearest-point search on the Earth: a k-d tree over points on the unit sphere.
///
/// Each latitude/longitude becomes a 3-D unit vector; the straight-line (chord) distance
/// between two unit vectors grows with the great-circle distance, so the nearest point by
/// chord is the nearest point on the globe, across the antimeridian and at the poles
/// alike, with no special cases. The tree is built once (O(n log n)) and is immutable, so
/// any number of threads may query it.
///
/// The tree is implicit: `order` holds point indices so that every range `lo..<hi` has its
/// splitting point at the middle, points before it on the low side of `axis[mid]` and
/// points after it on the high side.
public struct SphereIndex: Sendable {
    /// Mean Earth radius (IUGG), in kilometres.
    public static let earthRadiusKm = 6371.0088

    let xs: [Double]
    let ys: [Double]
    let zs: [Double]
    let order: [Int32]
    let axis: [UInt8]
    static let leafSize = 8

    /// Indexes the given points; `points[i]` is found as index `i`.
    public init(_ points: [(latitude: Double, longitude: Double)]) {
        var xs = [Double]()
        var ys = [Double]()
        var zs = [Double]()
        xs.reserveCapacity(points.count)
        ys.reserveCapacity(points.count)
        zs.reserveCapacity(points.count)
        for point in points {
            let v = Self.unitVector(latitude: point.latitude, longitude: point.longitude)
            xs.append(v.x)
            ys.append(v.y)
            zs.append(v.z)
        }
        precondition(points.count <= Int(Int32.max), "SphereIndex holds at most \(Int32.max) points")
        var order = (0..<points.count).map(Int32.init)
        var axis = [UInt8](repeating: 0, count: points.count)
        Self.build(&order, &axis, 0, points.count, xs, ys, zs)
        (self.xs, self.ys, self.zs, self.order, self.axis) = (xs, ys, zs, order, axis)
    }

    /// The point as a unit vector. One place written two ways (a pole at any longitude,
    /// longitude -180 and 180) gives the very same vector, so such records tie exactly and
    /// the first of them wins.
    static func unitVector(latitude: Double, longitude: Double) -> (x: Double, y: Double, z: Double) {
        let longitude = abs(latitude) == 90 ? 0 : longitude == -180 ? 180 : longitude
        let phi = latitude * .pi / 180
        let lambda = longitude * .pi / 180
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    /// Great-circle distance in km between unit vectors, from the angle between them as
    /// atan2(|p × q|, p · q): accurate from a metre to the antipodes alike.
    static func kilometres(_ p: (x: Double, y: Double, z: Double), _ q: (x: Double, y: Double, z: Double)) -> Double {
        let cx = p.y * q.z - p.z * q.y
        let cy = p.z * q.x - p.x * q.z
        let cz = p.x * q.y - p.y * q.x
        let dot = p.x * q.x + p.y * q.y + p.z * q.z
        return earthRadiusKm * atan2((cx * cx + cy * cy + cz * cz).squareRoot(), dot)
    }

    /// Great-circle distance in km (haversine), for callers with two coordinates.
    public static func distanceKm(
        _ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)
    ) -> Double {
        kilometres(
            unitVector(latitude: a.latitude, longitude: a.longitude),
            unitVector(latitude: b.latitude, longitude: b.longitude))
    }

    @inline(__always) func coordinate(_ point: Int, _ axis: Int) -> Double {
        axis == 0 ? xs[point] : axis == 1 ? ys[point] : zs[point]
    }

    private static func build(
        _ order: inout [Int32], _ axis: inout [UInt8], _ lo: Int, _ hi: Int, _ xs: [Double], _ ys: [Double],
        _ zs: [Double]
    ) {
        guard hi - lo > leafSize else { return }
        // Split on the axis where the points spread widest.
        var (lowX, lowY, lowZ) = (Double.infinity, Double.infinity, Double.infinity)
        var (highX, highY, highZ) = (-Double.infinity, -Double.infinity, -Double.infinity)
        for i in lo..<hi {
            let p = Int(order[i])
            lowX = min(lowX, xs[p])
            highX = max(highX, xs[p])
            lowY = min(lowY, ys[p])
            highY = max(highY, ys[p])
            lowZ = min(lowZ, zs[p])
            highZ = max(highZ, zs[p])
        }
        let spreads = [highX - lowX, highY - lowY, highZ - lowZ]
        let split = spreads.indices.max { spreads[$0] < spreads[$1] }!
        let values = split == 0 ? xs : split == 1 ? ys : zs
        let mid = (lo + hi) / 2
        select(&order, lo, hi, mid) { (values[Int($0)], $0) < (values[Int($1)], $1) }
        axis[mid] = UInt8(split)
        build(&order, &axis, lo, mid, xs, ys, zs)
        build(&order, &axis, mid + 1, hi, xs, ys, zs)
    }

    /// Quickselect: puts the element of rank `k` at `k`, smaller ones before, larger after.
    private static func select(_ a: inout [Int32], _ lo: Int, _ hi: Int, _ k: Int, _ less: (Int32, Int32) -> Bool) {
        var lo = lo
        var hi = hi - 1
        while lo < hi {
            // Median of three as the pivot keeps sorted input from going quadratic.
            let m = lo + (hi - lo) / 2
            if less(a[m], a[lo]) { a.swapAt(m, lo) }
            if less(a[hi], a[lo]) { a.swapAt(hi, lo) }
            if less(a[hi], a[m]) { a.swapAt(hi, m) }
            let pivot = a[m]
            var i = lo
            var j = hi
            while i <= j {
                while less(a[i], pivot) { i += 1 }
                while less(pivot, a[j]) { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return }
        }
    }

    /// The index of the point nearest to the coordinate and its distance in km, or nil
    /// for an empty index or a coordinate that is not finite. Of points at exactly the
    /// same position, the lowest index wins, so answers do not depend on how the tree was
    /// split. Points should be real positions (latitude within ±90); the index does not
    /// check them.
    public func nearest(latitude: Double, longitude: Double) -> (index: Int, km: Double)? {
        guard !order.isEmpty, latitude.isFinite, longitude.isFinite else { return nil }
        let q = Self.unitVector(latitude: latitude, longitude: longitude)
        var best = (distance: Double.infinity, index: Int.max)
        search(0, order.count, q, &best)
        return (best.index, Self.kilometres((xs[best.index], ys[best.index], zs[best.index]), q))
    }

    @inline(__always) private func consider(
        _ p: Int, _ q: (x: Double, y: Double, z: Double), _ best: inout (distance: Double, index: Int)
    ) {
        let dx = xs[p] - q.x
        let dy = ys[p] - q.y
        let dz = zs[p] - q.z
        let d = dx * dx + dy * dy + dz * dz
        if d < best.distance || (d == best.distance && p < best.index) { best = (d, p) }
    }

    private func search(
        _ lo: Int, _ hi: Int, _ q: (x: Double, y: Double, z: Double), _ best: inout (distance: Double, index: Int)
    ) {
        if hi - lo <= Self.leafSize {
            for i in lo..<hi { consider(Int(order[i]), q, &best) }
            return
        }
        let mid = (lo + hi) / 2
        let p = Int(order[mid])
        let a = Int(axis[mid])
        let delta = (a == 0 ? q.x : a == 1 ? q.y : q.z) - coordinate(p, a)
        consider(p, q, &best)
        let (near, far) = delta < 0 ? ((lo, mid), (mid + 1, hi)) : ((mid + 1, hi), (lo, mid))
        search(near.0, near.1, q, &best)
        // `<=`: a point on the far side at exactly the best distance may have a lower index.
        if delta * delta <= best.distance { search(far.0, far.1, q, &best) }
    }
}
