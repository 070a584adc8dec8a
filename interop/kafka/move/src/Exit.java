// The two classes connect-mirror 4.3.1 calls from where they were before Kafka 4.4.0 moved them
// to org.apache.kafka.common.utils.internals (see ../pom.xml): the same static methods, handed on
// unchanged. With them every method and field connect-mirror{,-client} 4.3.1 reference resolves
// against the 4.4.0 jars. Delete both when connect-mirror 4.4.0 can be fetched.
package org.apache.kafka.common.utils;

public final class Exit {
    private Exit() {}

    public static void exit(int statusCode) {
        org.apache.kafka.common.utils.internals.Exit.exit(statusCode);
    }

    public static void addShutdownHook(String name, Runnable runnable) {
        org.apache.kafka.common.utils.internals.Exit.addShutdownHook(name, runnable);
    }
}
