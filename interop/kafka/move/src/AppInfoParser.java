// See Exit.java: connect-mirror 4.3.1 asks here for the version its connectors report.
package org.apache.kafka.common.utils;

public final class AppInfoParser {
    private AppInfoParser() {}

    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }
}
