// Types for cluster-key-slot 1.1 (it ships none): the Redis Cluster hash slot of a key.
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string | Buffer): number;
}
