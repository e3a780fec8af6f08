import { sharedClusterDir, stopCluster } from "./postgres-cluster.js";

/** Stop the run's PostgreSQL, if a test started one, before the run's temp folder is removed. */
export default function setup(): () => void {
  const dir = sharedClusterDir();
  return () => stopCluster(dir);
}
