/// A notification image as the bytes of a PNG file, for a server that reads the image from a file
/// (`image-path`) instead of from the notification (`image-data`).
///
/// 8 bits a sample, RGBA with alpha and RGB without, each row unfiltered, in one zlib stream of
/// stored (uncompressed) deflate blocks: a form every PNG reader reads, written with no library.
/// A 48×48 tint disc is about 9.3 KB.
enum PNGImage {
    /// The PNG file of `image`.
    static func encode(_ image: NotificationImage) -> [UInt8] {
        let width = Int(image.width)
        let height = Int(image.height)
        let rowBytes = width * Int(image.channels)
        var rows: [UInt8] = []
        rows.reserveCapacity(height * (rowBytes + 1))
        for y in 0..<height {
            rows.append(0)  // filter type: none
            let start = y * Int(image.rowstride)
            rows.append(contentsOf: image.data[start..<start + rowBytes])
        }
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, image.hasAlpha ? 6 : 2, 0, 0, 0]  // bit depth, colour type, deflate, adaptive filter, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file.appendChunk("IHDR", header)
        file.appendChunk("IDAT", zlibStored(rows))
        file.appendChunk("IEND", [])
        return file
    }

    /// `bytes` as a zlib stream of stored deflate blocks (at most 65,535 bytes each).
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + length == bytes.count ? 1 : 0
            stream.append(final)  // BFINAL, BTYPE 00 (stored)
            stream += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            stream.append(contentsOf: bytes[offset..<offset + length])
            offset += length
        } while offset < bytes.count
        stream.appendBigEndian(adler32(bytes))
        return stream
    }

    /// zlib's Adler-32 checksum of `bytes`.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    /// The CRC-32 (ISO 3309, as PNG's chunks use it) of `bytes`.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    /// Appends a PNG chunk: its length, type, data and CRC (over the type and the data).
    fileprivate mutating func appendChunk(_ type: String, _ data: [UInt8]) {
        appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        append(contentsOf: typed)
        appendBigEndian(PNGImage.crc32(typed))
    }
}
