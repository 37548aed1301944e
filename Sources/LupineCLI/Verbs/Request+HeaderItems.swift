import Lupine

extension Request {
    /// Sets header items in order, as httpie does: a name's first item replaces the fields
    /// already there (the library's defaults), a later one adds a field, and a `nil` value
    /// removes the name's fields.
    mutating func applyHeaderItems(_ items: [(name: String, value: String?)]) {
        var given = Set<String>()
        for (name, value) in items {
            if let value, !given.insert(name.lowercased()).inserted {
                self.addValue(value, forHTTPHeaderField: name)
            } else {
                self.setValue(value, forHTTPHeaderField: name)
            }
        }
    }
}
