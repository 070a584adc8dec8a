// Prints Kafka 4.4.0's topic configs as JSON, for src/log/codegen/topic_configs.py: every
// config of LogConfig's ConfigDef (LogConfig.configKeys()), sorted by name, each with its type,
// default (ConfigDef.convertToString, or null), whether it is internal, its documentation, and
// the broker settings it falls back to in Kafka's order of precedence
// (ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS), each with the broker config's default
// (KafkaConfig's ConfigDef).
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.server.config.ConfigSynonym;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;

public class TopicConfigs {
    static String defaultString(ConfigDef.ConfigKey k) {
        Object d = k.defaultValue;
        return d == null || d == ConfigDef.NO_DEFAULT_VALUE ? null : ConfigDef.convertToString(d, k.type);
    }

    public static void main(String[] args) throws Exception {
        Map<String, ConfigDef.ConfigKey> broker = kafka.server.KafkaConfig.configDef().configKeys();
        Map<String, ConfigDef.ConfigKey> keys = new TreeMap<>(LogConfig.configKeys());
        List<Map<String, Object>> out = new ArrayList<>();
        for (ConfigDef.ConfigKey k : keys.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", k.name);
            m.put("type", k.type.name());
            m.put("default", defaultString(k));
            m.put("internal", k.internalConfig);
            List<Map<String, Object>> synonyms = new ArrayList<>();
            for (ConfigSynonym s : ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS
                    .getOrDefault(k.name, List.of())) {
                Map<String, Object> sm = new LinkedHashMap<>();
                sm.put("name", s.name());
                ConfigDef.ConfigKey bk = broker.get(s.name());
                sm.put("default", bk == null ? null : defaultString(bk));
                synonyms.add(sm);
            }
            m.put("synonyms", synonyms);
            m.put("documentation", k.documentation == null ? "" : k.documentation);
            out.add(m);
        }
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        System.out.println(mapper.writeValueAsString(out));
    }
}
