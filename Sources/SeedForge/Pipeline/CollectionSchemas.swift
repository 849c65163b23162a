/// The schemas of a loaded pipeline's collections, looked up by a collection a step, output
/// or side output names.
extension Dictionary where Key == CollectionID, Value == Schema {
    /// The schema of `collection`, which is always there: the loader refuses a definition
    /// that names a collection no source or step makes (`PipelinePlan.collection`), and every
    /// collection a run holds comes from such a definition. A missing schema is a bug of
    /// seedforge, not of the input, and stops the run here, naming the collection.
    subscript(loaded collection: CollectionID) -> Schema {
        guard let schema = self[collection] else {
            preconditionFailure("collection '\(collection)' has no schema: it was not checked when loading")
        }
        return schema
    }
}
