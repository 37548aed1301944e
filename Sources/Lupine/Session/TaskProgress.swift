/// One reading of a task's progress in one direction, as the progress `AsyncSequence` yields them.
public struct TaskProgress: Sendable, Equatable {
    /// Bytes transferred so far.
    public var completedUnitCount: Int64
    /// Bytes expected, or -1 when unknown.
    public var totalUnitCount: Int64

    /// The fraction done, 0...1; 0 while the total is unknown and nothing is done.
    public var fractionCompleted: Double {
        guard self.totalUnitCount > 0 else { return self.completedUnitCount > 0 && self.totalUnitCount == 0 ? 1 : 0 }
        return min(1, Double(self.completedUnitCount) / Double(self.totalUnitCount))
    }
}
