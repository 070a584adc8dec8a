// Kafka's partitionFor and Java's String.hashCode moved to base/java_string.h, where the
// transaction coordinator shares them; this header keeps the group coordinator's includes.
#ifndef SEGLOG_GROUP_GROUP_PARTITIONER_H_
#define SEGLOG_GROUP_GROUP_PARTITIONER_H_

#include "base/java_string.h"

#endif  // SEGLOG_GROUP_GROUP_PARTITIONER_H_
