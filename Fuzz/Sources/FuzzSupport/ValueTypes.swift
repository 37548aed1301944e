/// Checks that a parsed value holds only dictionaries keyed by strings, arrays, and leaves that
/// `isLeaf` accepts (the types a serializer documents); traps naming the first other one.
public func checkTypes(_ value: any Sendable, path: String = "$", of kind: String, isLeaf: (any Sendable) -> Bool) {
    switch value {
    case let dictionary as [String: any Sendable]:
        for (key, member) in dictionary { checkTypes(member, path: path + "." + key, of: kind, isLeaf: isLeaf) }
    case let array as [any Sendable]:
        for (index, element) in array.enumerated() { checkTypes(element, path: path + "[\(index)]", of: kind, isLeaf: isLeaf) }
    default:
        require(isLeaf(value), "undocumented \(kind) value type \(type(of: value)) at \(path)")
    }
}
