#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension GeoHash {
    /// The most cells one rectangle is covered with (before adjacent cells are merged into one range).
    static let maximumCellsPerRectangle = 9

    /// The finest cover: 50 bits, the precision GeoFire stores (``defaultPrecision``).
    static let maximumQueryBits = 50

    /// Degrees every rectangle is widened by on each side, so rounding (and points written exactly
    /// on a cell edge by a client that rounds edges the other way) cannot fall outside the cover.
    static let edgeMargin = 1e-9

    /// Geohash ranges whose union holds the geohash of every point within `radiusMeters` of `center`
    /// (great-circle distance, as ``GeoPoint/distance(to:)``). Results still need filtering by distance:
    /// the ranges cover whole cells, so they also hold points outside the circle.
    ///
    /// Like geofire-common, the precision follows the radius; here it is the finest at which the
    /// circle's bounding rectangle meets at most 9 cells, and cells that follow each other in geohash
    /// order are merged, so a query needs at most 9 ranges — 18 when the circle crosses the
    /// antimeridian (the rectangle is split there). A circle that holds a pole spans every longitude.
    /// Returns `[]` for an invalid center or a negative or NaN radius.
    ///
    /// ```swift
    /// for range in GeoHash.queryBounds(center: here, radiusMeters: 5_000) {
    ///     let q = ref.queryOrdered(byChild: "g").queryStarting(atValue: .string(range.start))
    ///         .queryEnding(beforeValue: .string(range.end))
    /// }
    /// ```
    public static func queryBounds(center: GeoPoint, radiusMeters: Double) -> [GeoHashRange] {
        guard center.isValid, radiusMeters >= 0 else { return [] }
        return cover(rectangles(center: center, radiusMeters: radiusMeters))
    }

    /// Geohash ranges whose union holds the geohash of every point in `box` (edges included); split
    /// at the antimeridian when the box crosses it. Returns `[]` for an invalid box.
    public static func queryBounds(box: GeoBox) -> [GeoHashRange] {
        guard box.isValid else { return [] }
        let south = box.southWest.latitude
        let north = box.northEast.latitude
        if box.crossesAntimeridian {
            return cover([
                Rectangle(south: south, north: north, west: box.southWest.longitude, east: 180),
                Rectangle(south: south, north: north, west: -180, east: box.northEast.longitude),
            ])
        }
        return cover([Rectangle(south: south, north: north, west: box.southWest.longitude, east: box.northEast.longitude)])
    }

    /// The rectangles (none crossing the antimeridian) that hold the circle.
    static func rectangles(center: GeoPoint, radiusMeters: Double) -> [Rectangle] {
        let angle = radiusMeters / GeoPoint.earthRadiusMeters  // radians of arc
        guard angle < .pi else { return [Rectangle(south: -90, north: 90, west: -180, east: 180)] }
        let latDelta = angle * 180 / .pi * (1 + 1e-9)
        let south = center.latitude - latDelta
        let north = center.latitude + latDelta
        if south <= -90 || north >= 90 {
            // The circle holds a pole: every longitude is in it near that pole.
            return [Rectangle(south: max(south, -90), north: min(north, 90), west: -180, east: 180)]
        }
        // The widest longitude the circle reaches (at a latitude nearer the pole than the center).
        let ratio = sin(angle) / cos(center.latitude * .pi / 180)
        guard ratio < 1 else { return [Rectangle(south: south, north: north, west: -180, east: 180)] }
        let lonDelta = asin(ratio) * 180 / .pi * (1 + 1e-9)
        guard lonDelta < 180 else { return [Rectangle(south: south, north: north, west: -180, east: 180)] }
        let west = center.longitude - lonDelta
        let east = center.longitude + lonDelta
        if west < -180 {
            return [
                Rectangle(south: south, north: north, west: west + 360, east: 180),
                Rectangle(south: south, north: north, west: -180, east: east),
            ]
        }
        if east > 180 {
            return [
                Rectangle(south: south, north: north, west: west, east: 180),
                Rectangle(south: south, north: north, west: -180, east: east - 360),
            ]
        }
        return [Rectangle(south: south, north: north, west: west, east: east)]
    }

    /// Covers each rectangle with cells, then sorts the ranges and merges the ones that touch.
    static func cover(_ rectangles: [Rectangle]) -> [GeoHashRange] {
        let ranges = rectangles.flatMap { $0.widened(by: edgeMargin).cover() }.sorted { $0.start.utf8.lexicographicallyPrecedes($1.start.utf8) }
        var merged: [GeoHashRange] = []
        for range in ranges {
            if let last = merged.last, !last.end.utf8.lexicographicallyPrecedes(range.start.utf8) {
                if last.end.utf8.lexicographicallyPrecedes(range.end.utf8) { merged[merged.count - 1].end = range.end }
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// A latitude/longitude rectangle that does not cross the antimeridian (`west <= east`).
    struct Rectangle: Sendable, Hashable {
        var south: Double
        var north: Double
        var west: Double
        var east: Double

        init(south: Double, north: Double, west: Double, east: Double) {
            self.south = south
            self.north = north
            self.west = west
            self.east = east
        }

        func widened(by margin: Double) -> Rectangle {
            Rectangle(
                south: max(-90, south - margin), north: min(90, north + margin), west: max(-180, west - margin),
                east: min(180, east + margin))
        }

        /// The cell indexes (column, row) the rectangle meets at `bits` bits.
        func cells(bits: Int) -> (columns: ClosedRange<UInt64>, rows: ClosedRange<UInt64>) {
            let lonBits = (bits + 1) / 2
            let latBits = bits / 2
            func index(_ value: Double, _ low: Double, _ span: Double, _ bits: Int) -> UInt64 {
                let count = Double(UInt64(1) << bits)
                let i = ((value - low) / span * count).rounded(.down)
                return UInt64(min(max(i, 0), count - 1))
            }
            return (
                index(west, -180, 360, lonBits)...index(east, -180, 360, lonBits),
                index(south, -90, 180, latBits)...index(north, -90, 180, latBits)
            )
        }

        /// The ranges of the finest cover with at most ``GeoHash/maximumCellsPerRectangle`` cells.
        func cover() -> [GeoHashRange] {
            var bits = 0
            while bits < GeoHash.maximumQueryBits {
                let next = cells(bits: bits + 1)
                if next.columns.count * next.rows.count > GeoHash.maximumCellsPerRectangle { break }
                bits += 1
            }
            let (columns, rows) = cells(bits: bits)
            let lonBits = (bits + 1) / 2
            let latBits = bits / 2
            var codes: [UInt64] = []
            for column in columns {
                for row in rows { codes.append(GeoHash.interleave(column: column, lonBits: lonBits, row: row, latBits: latBits)) }
            }
            codes.sort()
            var ranges: [GeoHashRange] = []
            var runStart = codes[0]
            var runEnd = codes[0]
            for code in codes.dropFirst() {
                if code == runEnd + 1 {
                    runEnd = code
                } else {
                    ranges.append(GeoHash.range(from: runStart, through: runEnd, bits: bits))
                    runStart = code
                    runEnd = code
                }
            }
            ranges.append(GeoHash.range(from: runStart, through: runEnd, bits: bits))
            return ranges
        }
    }

    /// The `bits`-bit geohash code of a cell: longitude and latitude bits alternately, longitude first.
    static func interleave(column: UInt64, lonBits: Int, row: UInt64, latBits: Int) -> UInt64 {
        var code: UInt64 = 0
        for k in 0..<(lonBits + latBits) {
            let bit = k % 2 == 0 ? (column >> UInt64(lonBits - 1 - k / 2)) & 1 : (row >> UInt64(latBits - 1 - k / 2)) & 1
            code = code << 1 | bit
        }
        return code
    }

    /// `count` characters of a code whose bits fill whole characters.
    static func characters(_ code: UInt64, count: Int) -> String {
        var out: [Character] = []
        for i in stride(from: count - 1, through: 0, by: -1) { out.append(alphabet[Int((code >> UInt64(5 * i)) & 31)]) }
        return String(out)
    }

    /// The range of the geohashes in the cells `first…last` (consecutive `bits`-bit codes), written as
    /// geofire-common does: a partial last character names the first value and the value past the end
    /// (or `~` past the last one), a full one ends at the prefix followed by `~`.
    static func range(from first: UInt64, through last: UInt64, bits: Int) -> GeoHashRange {
        let pad = (5 - bits % 5) % 5
        let count = (bits + pad) / 5
        let start = characters(first << UInt64(pad), count: count)
        if pad == 0 {
            return GeoHashRange(start: start, end: characters(last, count: count) + "~")
        }
        let padded = last << UInt64(pad)
        let endValue = Int(padded & 31) + (1 << pad)
        let base = characters(padded >> 5, count: count - 1)
        return GeoHashRange(start: start, end: endValue < 32 ? base + String(alphabet[endValue]) : base + "~")
    }
}
