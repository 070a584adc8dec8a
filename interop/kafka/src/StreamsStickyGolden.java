// Prints Kafka 4.4.0's StickyTaskAssignor (the streams groups' `sticky`) on seeded random
// inputs, for src/group/streams_task_assignor_test.cc (tests/data/golden/streams_sticky.txt).
// Each case is a fresh group (no previous tasks) or a group whose members bring previous active
// and standby tasks; the output lists every member's active and standby tasks.
//
//   case <standbys> <subtopology>:<tasks>:<stateful 0|1>,...
//   member <id> <process> active=<sub>.<p>;... standby=<sub>.<p>;...   (previous tasks)
//   result <id> active=... standby=...
//   end
//
// Regenerate: interop/kafka/oracle.sh run StreamsStickyGolden 20261205 60 \
//   > tests/data/golden/streams_sticky.txt
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

public class StreamsStickyGolden {
    static String tasks(Map<String, Set<Integer>> m) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Set<Integer>> e : new TreeMap<>(m).entrySet()) {
            for (int p : new TreeSet<>(e.getValue())) {
                if (b.length() > 0) b.append(';');
                b.append(e.getKey()).append('.').append(p);
            }
        }
        return b.toString();
    }

    public static void main(String[] args) {
        Random rnd = new Random(Long.parseLong(args[0]));
        int cases = Integer.parseInt(args[1]);
        for (int c = 0; c < cases; c++) {
            int standbys = rnd.nextInt(3);
            int subs = 1 + rnd.nextInt(3);
            TreeMap<String, Integer> tasksPer = new TreeMap<>();
            TreeSet<String> stateful = new TreeSet<>();
            for (int s = 0; s < subs; s++) {
                tasksPer.put(String.valueOf(s), 1 + rnd.nextInt(8));
                if (rnd.nextBoolean()) stateful.add(String.valueOf(s));
            }
            int processes = 1 + rnd.nextInt(4);
            int members = processes + rnd.nextInt(4);
            boolean sticky = rnd.nextBoolean();
            Map<String, MemberMetadataAndStateImpl> specs = new HashMap<>();
            StringBuilder out = new StringBuilder();
            StringBuilder head = new StringBuilder("case " + standbys + " ");
            boolean first = true;
            for (Map.Entry<String, Integer> e : tasksPer.entrySet()) {
                if (!first) head.append(',');
                first = false;
                head.append(e.getKey()).append(':').append(e.getValue()).append(':')
                    .append(stateful.contains(e.getKey()) ? 1 : 0);
            }
            out.append(head).append('\n');
            // Previous owners: each task given to a random member (active) when sticky.
            List<Map<String, Set<Integer>>> prevActive = new ArrayList<>();
            List<Map<String, Set<Integer>>> prevStandby = new ArrayList<>();
            for (int m = 0; m < members; m++) {
                prevActive.add(new HashMap<>());
                prevStandby.add(new HashMap<>());
            }
            if (sticky) {
                for (Map.Entry<String, Integer> e : tasksPer.entrySet()) {
                    for (int p = 0; p < e.getValue(); p++) {
                        if (rnd.nextInt(4) == 0) continue;  // some tasks had no owner
                        int m = rnd.nextInt(members);
                        prevActive.get(m).computeIfAbsent(e.getKey(), k -> new TreeSet<>()).add(p);
                        if (stateful.contains(e.getKey()) && standbys > 0 && rnd.nextBoolean()) {
                            int s = rnd.nextInt(members);
                            if (s != m) {
                                prevStandby.get(s).computeIfAbsent(e.getKey(), k -> new TreeSet<>()).add(p);
                            }
                        }
                    }
                }
            }
            for (int m = 0; m < members; m++) {
                String id = "m" + m;
                String process = "p" + (m % processes);
                specs.put(id, new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), process,
                    Map.of(), prevActive.get(m), prevStandby.get(m), Map.of(), Map.of(), Map.of()));
                out.append("member ").append(id).append(' ').append(process)
                    .append(" active=").append(tasks(prevActive.get(m)))
                    .append(" standby=").append(tasks(prevStandby.get(m))).append('\n');
            }
            TopologyDescriber topology = new TopologyDescriber() {
                public List<String> subtopologies() {
                    return new ArrayList<>(tasksPer.keySet());
                }
                public int maxNumInputPartitions(String s) {
                    return tasksPer.get(s);
                }
                public boolean isStateful(String s) {
                    return stateful.contains(s);
                }
            };
            GroupAssignment a = new StickyTaskAssignor().assign(
                new GroupSpecImpl(specs, new AssignmentConfigsImpl(standbys, List.of())), topology);
            for (Map.Entry<String, MemberAssignment> e : new TreeMap<>(a.members()).entrySet()) {
                out.append("result ").append(e.getKey())
                    .append(" active=").append(tasks(e.getValue().activeTasks()))
                    .append(" standby=").append(tasks(e.getValue().standbyTasks())).append('\n');
            }
            out.append("end\n");
            System.out.print(out);
        }
    }
}
