import CSeedForgeSupport
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The bulk of a large streamed file written past the page cache (`O_DIRECT`): the bytes
/// are gathered in one of two aligned buffers, and each full buffer goes from this memory
/// to the disk on a queue of its own while the caller renders and hashes the next ones.
///
/// Why: a buffered write copies every byte into the page cache, and the run's one flush
/// writes them out again from there. In a profile of the 1M-row CSV bench (229 MB of NDJSON
/// and snapshot) that copy took 14% of the run's CPU, and on a machine where other programs
/// write, the kernel also makes the writer wait for its dirty pages (229 MB buffered on the
/// loaded machine: 0.10-0.43 s of system time and 0.7-2.6 s of wall time; past the page cache,
/// 0.015 s of system time and 0.2-0.45 s of wall time, in 8 MiB writes). The queue's thread
/// only waits on the disk, so it is not counted in the run's `--threads` budget.
///
/// The bytes of the file do not depend on it. A file system that refuses `O_DIRECT` (or a
/// write it refuses, `EINVAL`) gets the bytes buffered, as before.
/// (`@unchecked Sendable`: the queue reads only the buffer it is handed and sets `failure`
/// and `direct` before signalling `free`, which the caller waits on before it reads them.)
final class DirectWrite: @unchecked Sendable {
    /// Bytes of each buffer, and of each write but the last.
    static let blockBytes = 4 << 20
    /// What `O_DIRECT` asks of the memory, the file offset and the length of each write: a
    /// multiple of the disk's logical block size, which is at most a page on Linux.
    static let alignment = 4096

    private let fd: Int32
    private let path: String
    private var buffers: [UnsafeMutableRawPointer] = []
    /// The buffer being filled, and the bytes in it.
    private var filling = 0
    private var filled = 0
    /// Where the buffer being filled goes in the file.
    private var offset: Int
    private let queue = DispatchQueue(label: "seedforge.direct-write")
    /// Signalled when the other buffer is free again (its write done).
    private let free = DispatchSemaphore(value: 1)
    /// Whether writes still go past the page cache (the queue may turn it off).
    private var direct = true
    /// A write's failure, set by the queue and thrown by the next call.
    private var failure: IOFailure?

    /// Turns `O_DIRECT` on for `fd`, whose next byte goes to `offset` (a multiple of
    /// `alignment`); nil when the file system refuses it.
    init?(fd: Int32, path: String, offset: Int) {
        precondition(offset % Self.alignment == 0, "a direct write starts at an aligned offset")
        self.fd = fd
        self.path = path
        self.offset = offset
        for _ in 0..<2 {
            var memory: UnsafeMutableRawPointer?
            guard posix_memalign(&memory, Self.alignment, Self.blockBytes) == 0, let memory else {
                buffers.forEach { Glibc.free($0) }
                return nil
            }
            buffers.append(memory)
        }
        guard seedforge_set_direct(fd, 1) == 0 else {
            buffers.forEach { Glibc.free($0) }
            return nil
        }
    }

    deinit {
        // A write may still be going (a run that failed before `finish`): it owns its buffer.
        free.wait()
        free.signal()
        buffers.forEach { Glibc.free($0) }
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard var from = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let length = min(left, Self.blockBytes - filled)
            (buffers[filling] + filled).copyMemory(from: from, byteCount: length)
            filled += length
            from += length
            left -= length
            if filled == Self.blockBytes { try submit() }
        }
    }

    /// Hands the full buffer to the queue once the other one is free, and fills that one.
    private func submit() throws {
        free.wait()
        if let failure {
            free.signal()
            throw failure
        }
        let (index, length, at) = (filling, filled, offset)
        queue.async { [self] in
            do { try write(buffers[index], length, at: at) } catch let error as IOFailure { failure = error } catch {}
            free.signal()
        }
        filling ^= 1
        offset += length
        filled = 0
    }

    /// Waits for the last write, then writes what is left: its whole blocks directly, the
    /// bytes past them buffered (a direct write's length is a whole number of blocks).
    func finish() throws {
        free.wait()
        free.signal()
        if let failure { throw failure }
        let buffer = UnsafeRawPointer(buffers[filling])
        let whole = filled / Self.alignment * Self.alignment
        if whole > 0 { try write(buffer, whole, at: offset) }
        if filled > whole {
            if direct { try turnOff() }
            try write(buffer + whole, filled - whole, at: offset + whole)
        }
        offset += filled
        filled = 0
    }

    private func turnOff() throws {
        guard seedforge_set_direct(fd, 0) == 0 else {
            throw IOFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        direct = false
    }

    /// Writes `length` bytes at `at`; a direct write the file system refuses, or cuts short,
    /// is written again buffered, and so is every later one.
    private func write(_ bytes: UnsafeRawPointer, _ length: Int, at: Int) throws {
        var done = 0
        while done < length {
            let result = pwrite(fd, bytes + done, length - done, off_t(at + done))
            if result < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL, direct {
                    try turnOff()
                    continue
                }
                throw IOFailure("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            done += result
            if done < length, direct { try turnOff() }
        }
    }
}
