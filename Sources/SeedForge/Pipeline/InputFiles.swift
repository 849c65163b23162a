/// Every file a run reads, numbered in the order it is kept (a finding's
/// `Location.fileNumber`, a record's file in a spill file): its text, where it stands in the
/// pipeline, and once its records are all read, its manifest entry, which holds the path
/// datasets name it by (relative to the pipeline's folder), its size, SHA-256 and stamp.
/// One table for the run: side outputs, partials and the manifest read it, instead of
/// mapping display paths to dataset paths and back.
struct InputFiles {
    struct Entry {
        let text: SourceText
        /// The file's source, its place among that source's files, and its part.
        let place: SourceFile
        /// Set when the file is booked (every record read); nil for a file that failed.
        var input: Manifest.Input?
    }

    private(set) var entries: [Entry] = []
    /// The texts by number (what spill files and `Origin` point into).
    private(set) var texts: [SourceText] = []

    /// Numbers a file read as the `place.rank`th file of source `place.source`; its
    /// locations name this number from now on.
    @discardableResult
    mutating func add(_ text: SourceText, place: SourceFile) -> Int {
        let number = entries.count
        text.fileNumber = number
        entries.append(Entry(text: text, place: place))
        texts.append(text)
        return number
    }

    /// The number of a file in the table.
    func number(of text: SourceText) -> Int? {
        let number = text.fileNumber
        return number >= 0 && number < texts.count && texts[number] === text ? number : nil
    }

    /// Books a file whose records are all read (see `Ingestion.book`).
    mutating func book(_ text: SourceText, _ input: Manifest.Input) {
        guard let number = number(of: text) else { return }
        entries[number].input = input
    }

    /// Adds `records` to a booked file's count (a later part of a file split between shards).
    mutating func addRecords(_ records: Int, to text: SourceText) {
        guard let number = number(of: text), let input = entries[number].input else { return }
        entries[number].input = Manifest.Input(
            collection: input.collection, file: input.file, sha256: input.sha256, bytes: input.bytes,
            records: input.records + records, stamp: input.stamp)
    }

    /// The manifest's inputs: every booked file, in the order read.
    var inputs: [Manifest.Input] { entries.compactMap(\.input) }

    /// The path a dataset names a location's file by: relative to the pipeline's folder
    /// for a booked file, so a dataset is the same whichever folder the run started in;
    /// as shown otherwise (a file that could not be read).
    func datasetPath(of location: Location) -> String {
        let number = location.fileNumber
        guard number >= 0, number < entries.count, let input = entries[number].input else { return location.file }
        return input.file
    }
}
