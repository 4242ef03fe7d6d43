//
// AutoFailoverTopologySourceSource.cpp
//
// The pg_auto_failover topology source's own source, compiled into the unit tests so they exercise exactly
// the plugin's code without loading it.
//

#include "../../../Plugins/Topology/AutoFailoverTopologySource.cpp"
