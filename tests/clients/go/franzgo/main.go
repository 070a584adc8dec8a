// franzgo: a third client library against seglog serve - franz-go (kgo, kadm), the pure-Go
// Kafka client. Creates a topic, produces records with franz-go's defaults (idempotent,
// batched), consumes them back in a consumer group and commits, and asks the admin APIs
// (metadata, configs, groups, offsets). Prints "produced N consumed N" and exits 0 only when
// every record came back once, in order per partition.
//
//	franzgo <bootstrap> <topic> <records>
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "franzgo: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: franzgo <bootstrap> <topic> <records>")
	}
	bootstrap, topic := os.Args[1], os.Args[2]
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail("records: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	admin, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		fail("client: %v", err)
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	created, err := adm.CreateTopics(ctx, 3, 1, nil, topic)
	if err != nil || created[topic].Err != nil {
		fail("create topic: %v %v", err, created[topic].Err)
	}
	if _, err := adm.ListTopics(ctx); err != nil {
		fail("list topics: %v", err)
	}
	if _, err := adm.DescribeTopicConfigs(ctx, topic); err != nil {
		fail("describe configs: %v", err)
	}
	if _, err := adm.ApiVersions(ctx); err != nil {
		fail("api versions: %v", err)
	}

	producer, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic))
	if err != nil {
		fail("producer: %v", err)
	}
	for i := 0; i < n; i++ {
		r := &kgo.Record{Key: []byte(fmt.Sprintf("k%d", i%7)), Value: []byte(fmt.Sprintf("v%d", i))}
		producer.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				fail("produce: %v", err)
			}
		})
	}
	if err := producer.Flush(ctx); err != nil {
		fail("flush: %v", err)
	}
	producer.Close()

	consumer, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumerGroup("franzgo-"+topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit())
	if err != nil {
		fail("consumer: %v", err)
	}
	seen := map[string]bool{}
	last := map[int32]int64{}
	for len(seen) < n {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			fail("consumed %d of %d before the deadline", len(seen), n)
		}
		fetches.EachError(func(t string, p int32, err error) { fail("fetch %s-%d: %v", t, p, err) })
		fetches.EachRecord(func(r *kgo.Record) {
			if prev, ok := last[r.Partition]; ok && r.Offset <= prev {
				fail("partition %d went back from %d to %d", r.Partition, prev, r.Offset)
			}
			last[r.Partition] = r.Offset
			if seen[string(r.Value)] {
				fail("%s read twice", r.Value)
			}
			seen[string(r.Value)] = true
		})
	}
	if err := consumer.CommitUncommittedOffsets(ctx); err != nil {
		fail("commit: %v", err)
	}
	consumer.Close()
	groups, err := adm.DescribeGroups(ctx, "franzgo-"+topic)
	if err != nil {
		fail("describe groups: %v", err)
	}
	if _, ok := groups["franzgo-"+topic]; !ok {
		fail("group not described")
	}
	offsets, err := adm.FetchOffsets(ctx, "franzgo-"+topic)
	if err != nil {
		fail("fetch offsets: %v", err)
	}
	committed := int64(0)
	offsets.Each(func(o kadm.OffsetResponse) { committed += o.At })
	if committed != int64(n) {
		fail("committed offsets add up to %d, not %d", committed, n)
	}
	fmt.Printf("produced %d consumed %d\n", n, len(seen))
}
