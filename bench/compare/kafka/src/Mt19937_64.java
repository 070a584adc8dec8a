/**
 * The 64-bit Mersenne Twister (MT19937-64), bit-for-bit the generator C++'s std::mt19937_64 is
 * specified to be, so that the Kafka harness looks up exactly the offsets and timestamps that
 * seglog's harness (bench/compare/seglog_bench.cc, std::mt19937_64 seeded with 42) looks up.
 * Written from the published parameters (Matsumoto and Nishimura, 2000; C++ [rand.predef]).
 */
final class Mt19937_64 {
    private static final int N = 312;
    private static final int M = 156;
    private static final long MATRIX_A = 0xB5026F5AA96619E9L;
    private static final long UPPER_MASK = 0xFFFFFFFF80000000L;  // most significant 33 bits
    private static final long LOWER_MASK = 0x000000007FFFFFFFL;  // least significant 31 bits

    private final long[] mt = new long[N];
    private int index;

    Mt19937_64(long seed) {
        mt[0] = seed;
        for (int i = 1; i < N; i++) {
            mt[i] = 6364136223846793005L * (mt[i - 1] ^ (mt[i - 1] >>> 62)) + i;
        }
        index = N;
    }

    private void twist() {
        for (int i = 0; i < N; i++) {
            long x = (mt[i] & UPPER_MASK) | (mt[(i + 1) % N] & LOWER_MASK);
            long xa = x >>> 1;
            if ((x & 1L) != 0) xa ^= MATRIX_A;
            mt[i] = mt[(i + M) % N] ^ xa;
        }
        index = 0;
    }

    /** The next 64-bit output (an unsigned value in a long). */
    long next() {
        if (index >= N) twist();
        long y = mt[index++];
        y ^= (y >>> 29) & 0x5555555555555555L;
        y ^= (y << 17) & 0x71D67FFFEDA60000L;
        y ^= (y << 37) & 0xFFF7EEE000000000L;
        y ^= y >>> 43;
        return y;
    }

    /** next() % bound with next() read as unsigned, as C++'s `rng() % uint64_t(bound)`. */
    long nextMod(long bound) {
        return Long.remainderUnsigned(next(), bound);
    }

    /** C++ requires the 10000th output of a default-seeded (5489) mt19937_64 to be this value. */
    static boolean selfTest() {
        Mt19937_64 r = new Mt19937_64(5489L);
        long v = 0;
        for (int i = 0; i < 10000; i++) v = r.next();
        return v == Long.parseUnsignedLong("9981545732273789042");
    }
}
