//
// StandardEvictionPolicySource.cpp
//
// The standard eviction policy's own source, compiled into the unit tests so they exercise exactly the code
// of the plugin without loading it (EvictionPolicyTest also loads the built plugin by name).
//

#include "../../../Plugins/Eviction/StandardEvictionPolicy.cpp"
