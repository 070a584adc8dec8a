// Clang thread-safety annotations (no-ops on other compilers). The asan-ubsan preset (clang)
// turns on -Wthread-safety -Werror, so a GUARDED_BY member touched without its mutex fails to
// build.
#ifndef SEGLOG_BASE_THREAD_ANNOTATIONS_H_
#define SEGLOG_BASE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define SEGLOG_TSA(x) __attribute__((x))
#else
#define SEGLOG_TSA(x)
#endif

#define CAPABILITY(x) SEGLOG_TSA(capability(x))
#define SCOPED_CAPABILITY SEGLOG_TSA(scoped_lockable)
#define GUARDED_BY(x) SEGLOG_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) SEGLOG_TSA(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) SEGLOG_TSA(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) SEGLOG_TSA(acquired_after(__VA_ARGS__))
#define REQUIRES(...) SEGLOG_TSA(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) SEGLOG_TSA(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) SEGLOG_TSA(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) SEGLOG_TSA(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) SEGLOG_TSA(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) SEGLOG_TSA(release_shared_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) SEGLOG_TSA(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) SEGLOG_TSA(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) SEGLOG_TSA(assert_capability(x))
#define RETURN_CAPABILITY(x) SEGLOG_TSA(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS SEGLOG_TSA(no_thread_safety_analysis)

#endif  // SEGLOG_BASE_THREAD_ANNOTATIONS_H_
