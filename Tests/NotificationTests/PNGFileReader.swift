import Foundation
import TestSupport

/// Reads a PNG file's pixels with Python's zlib, a reader that is not Reveille's writer: every
/// chunk's CRC checked, the image data inflated and each row unfiltered (all five filter types),
/// and the rows returned without their filter bytes.
enum PNGFileReader {
    static let script = #"""
        import struct, sys, zlib
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG signature'
        offset, idat, header = 8, b'', None
        while offset < len(data):
            length, kind = struct.unpack('>I4s', data[offset:offset + 8])
            body = data[offset + 8:offset + 8 + length]
            crc, = struct.unpack('>I', data[offset + 8 + length:offset + 12 + length])
            assert zlib.crc32(kind + body) & 0xffffffff == crc, 'bad CRC in ' + kind.decode()
            if kind == b'IHDR': header = struct.unpack('>IIBBBBB', body)
            if kind == b'IDAT': idat += body
            offset += 12 + length
        width, height, depth, colour, _, _, interlace = header
        assert depth == 8 and colour in (2, 6) and interlace == 0, header
        size = 4 if colour == 6 else 3
        raw, rows, previous = zlib.decompress(idat), [], bytearray(width * size)
        stride = width * size + 1
        for y in range(height):
            kind, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
            for i in range(len(line)):
                a = line[i - size] if i >= size else 0
                b = previous[i]
                c = previous[i - size] if i >= size else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = [0, a, b, (a + b) // 2, a if pa <= pb and pa <= pc else (b if pb <= pc else c)][kind]
                line[i] = (line[i] + predictor) & 0xff
            rows.append(bytes(line))
            previous = line
        open(sys.argv[2], 'w').write(b''.join(rows).hex())
        """#

    /// The pixels of the PNG file at `file`, row after row.
    ///
    /// Python writes them (in hexadecimal) to a file beside it, not to a pipe: a pipe to this
    /// process was once found closed under the whole suite's load (Python's BrokenPipeError).
    static func pixels(of file: URL) throws -> [UInt8] {
        let output = file.appendingPathExtension("hex")
        defer { try? FileManager.default.removeItem(at: output) }
        try Executables.run("/usr/bin/python3", ["-c", script, file.path, output.path])
        let hex = try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
