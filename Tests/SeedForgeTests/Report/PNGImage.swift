import CSeedForgeSupport
import Foundation

/// The pixels of a PNG file (8-bit RGB or RGBA, not interlaced: what Chromium's
/// `--screenshot` writes), decoded with zlib and the five PNG row filters, so a test
/// can look at what a browser drew.
struct PNGImage {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let width: Int
    let height: Int
    /// Bytes per pixel: 3 (RGB) or 4 (RGBA).
    let channels: Int
    /// Rows of pixels, unfiltered, `width * channels` bytes each.
    let pixels: [UInt8]

    init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Failure(description: "not a PNG file")
        }
        func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 8
        var header: [UInt8] = []
        var compressed: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = u32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { throw Failure(description: "truncated \(type) chunk") }
            let body = bytes[offset + 8..<offset + 8 + length]
            if type == "IHDR" { header = Array(body) }
            if type == "IDAT" { compressed += body }
            offset += 12 + length
            if type == "IEND" { break }
        }
        guard header.count == 13 else { throw Failure(description: "no IHDR chunk") }
        width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
        height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        guard header[8] == 8, header[9] == 2 || header[9] == 6, header[12] == 0 else {
            throw Failure(description: "unsupported PNG (bit depth \(header[8]), colour type \(header[9]))")
        }
        channels = header[9] == 6 ? 4 : 3
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var length = raw.count
        let status = compressed.withUnsafeBufferPointer { input in
            raw.withUnsafeMutableBufferPointer { output in
                seedforge_zlib_uncompress(input.baseAddress, input.count, output.baseAddress, &length)
            }
        }
        guard status == 0, length == raw.count else { throw Failure(description: "damaged image data") }
        var out = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let target = row * stride
            for index in 0..<stride {
                let x = raw[source + index]
                let a = index >= channels ? Int(out[target + index - channels]) : 0
                let b = row > 0 ? Int(out[target - stride + index]) : 0
                let c = row > 0 && index >= channels ? Int(out[target - stride + index - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw Failure(description: "unknown row filter \(filter)")
                }
                out[target + index] = UInt8(truncatingIfNeeded: Int(x) + predictor)
            }
        }
        pixels = out
    }

    /// How many pixels are within `tolerance` of the colour, per channel.
    func count(red: Int, green: Int, blue: Int, tolerance: Int = 10) -> Int {
        var total = 0
        var index = 0
        while index < pixels.count {
            if abs(Int(pixels[index]) - red) <= tolerance && abs(Int(pixels[index + 1]) - green) <= tolerance
                && abs(Int(pixels[index + 2]) - blue) <= tolerance
            {
                total += 1
            }
            index += channels
        }
        return total
    }
}
