// Prints Kafka 4.4.0's broker configs as JSON, for src/server/codegen/broker_configs.py: every
// config of KafkaConfig's ConfigDef that is not internal (what DescribeConfigs lists for a
// BROKER), sorted by name, each with its type, default (ConfigDef.convertToString, or null),
// documentation, whether it may change dynamically (DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS)
// and its synonyms in Kafka's order of precedence (DynamicBrokerConfig.brokerConfigSynonyms).
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.server.config.DynamicBrokerConfig;

public class BrokerConfigs {
    public static void main(String[] args) throws Exception {
        ConfigDef def = kafka.server.KafkaConfig.configDef();
        Map<String, ConfigDef.ConfigKey> keys = new TreeMap<>(def.configKeys());
        List<Map<String, Object>> out = new ArrayList<>();
        for (ConfigDef.ConfigKey k : keys.values()) {
            if (k.internalConfig) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", k.name);
            m.put("type", k.type.name());
            Object d = k.defaultValue;
            m.put("default", d == null || d == ConfigDef.NO_DEFAULT_VALUE ? null
                    : ConfigDef.convertToString(d, k.type));
            m.put("dynamic", DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS.contains(k.name));
            m.put("synonyms", DynamicBrokerConfig.brokerConfigSynonyms(k.name, true));
            m.put("documentation", k.documentation == null ? "" : k.documentation);
            out.add(m);
        }
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        System.out.println(mapper.writeValueAsString(out));
    }
}
