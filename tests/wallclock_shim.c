/*
 * The wall clock of the processes it is preloaded into, stepped by a file: the tests' and the
 * soak's way to step a station's wall clock without stepping the machine's (which would
 * disturb every other program on it) and without stepping the monotonic clock (which never
 * steps on a real machine, and which the station's timers run on).
 *
 * LD_PRELOAD=shim.so STATION_WALLCLOCK_FILE=offset: the file holds one signed 64-bit integer
 * (native byte order), nanoseconds added to CLOCK_REALTIME (and its coarse variant,
 * gettimeofday and time). It is mapped shared, so a write to it steps every process that
 * has it mapped at once. No file, or one too short: no offset.
 *
 * Why not libfaketime: Debian 12's 0.9.10, with the monotonic clock left alone, passes a
 * negative deadline to clock_nanosleep(TIMER_ABSTIME), which Python 3.11's time.sleep uses
 * (wolfcw/libfaketime issue 426): every sleep fails with EINVAL.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static volatile int64_t *offset_ns;
static int mapped;

static int64_t offset(void) {
    if (!mapped) {
        mapped = 1;
        const char *path = getenv("STATION_WALLCLOCK_FILE");
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(int64_t)) {
            void *map = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
            if (map != MAP_FAILED) offset_ns = (volatile int64_t *)map;
        }
        if (fd >= 0) close(fd);
    }
    return offset_ns ? *offset_ns : 0;
}

static clock_gettime_fn real_clock_gettime(void) {
    static clock_gettime_fn real;
    if (!real) real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    return real;
}

static void shift(struct timespec *ts, int64_t by) {
    int64_t ns = (int64_t)ts->tv_nsec + by % 1000000000LL;
    ts->tv_sec += by / 1000000000LL + ns / 1000000000LL;
    ns %= 1000000000LL;
    if (ns < 0) { ns += 1000000000LL; ts->tv_sec -= 1; }
    ts->tv_nsec = (long)ns;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int result = real_clock_gettime()(clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) shift(ts, offset());
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    struct timespec ts;
    int result = clock_gettime(CLOCK_REALTIME, &ts);
    if (result == 0 && tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
