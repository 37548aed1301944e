#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// This process's CPU time and context switches so far, all threads together (`getrusage`).
struct ResourceUsage {
    let cpuSeconds: Double
    let contextSwitches: Int

    /// This process's usage, or with `children` that of its children it has waited for (a
    /// peer's process, such as h2load).
    static func now(children: Bool = false) -> ResourceUsage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        #endif
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ResourceUsage(cpuSeconds: user + system, contextSwitches: Int(usage.ru_nvcsw + usage.ru_nivcsw))
    }

    static func - (later: ResourceUsage, earlier: ResourceUsage) -> ResourceUsage {
        ResourceUsage(cpuSeconds: later.cpuSeconds - earlier.cpuSeconds, contextSwitches: later.contextSwitches - earlier.contextSwitches)
    }
}
