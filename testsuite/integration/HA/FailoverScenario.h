//
// FailoverScenario.h
//
// One failover scenario against a failover manager's cluster (HaCluster), shared by the HA suites: a pooled data source under
// load (FailoverLoad), a fault, a PromotionWatch, the assertions every scenario shares and one printed
// line of measurements.
//

#ifndef BlueTusk_FailoverScenario_INCLUDED
#define BlueTusk_FailoverScenario_INCLUDED

#include <functional>
#include <string>

namespace BlueTusk {
namespace Test {

struct HaCluster;


struct Scenario
{
	const HaCluster* cluster = nullptr;             /// the cluster and its script; nullptr: HaCluster::patroni()
	std::string name;
	std::function<void(int leader)> fault;          /// breaks the leader (asserts the command worked)
	std::function<void(int leader)> afterFailover;  /// runs once BlueTusk wrote on the new primary, or empty
	std::string restore;                            /// script command at the end ("%" = old leader)
	std::string settings;                           /// keywords added to the data source's (";..." form)
};


struct Outcome
{
	int oldLeader = 0;
	int newLeader = 0;
	double faultToPromotionMs = 0;       /// fault -> a member accepts writes (PromotionWatch)
	double faultToRecoveryEndMs = 0;     /// fault -> that member answered pg_is_in_recovery() = false
	double promotionToFirstWriteMs = 0;  /// that -> the first BlueTusk INSERT on it returned
	long writesOnDeposed = 0;   /// writes acknowledged by the old leader after another member accepted writes
	long writeErrors = 0;       /// writes that failed on a checked-out session (lost in flight)
	long readsDuringFailover = 0; /// reads that succeeded between the fault and the promotion
};


Outcome runScenario(const Scenario& scenario);
	/// Waits for a healthy cluster, creates bt_ha_writes, runs 8 writers (read-write) and 4 readers
	/// (prefer-standby) on a data source with Failover Timeout=30, Timeout=3, Maximum Pool Size=20 (plus
	/// scenario.settings); once 50 writes reached the leader, runs the fault and waits (60 s) for a
	/// promotion and (40 s) for a BlueTusk write on the new primary; runs afterFailover; 1.5 s more load.
	/// Asserts (CppUnit): no read-write checkout handed a standby, no failed checkout, writes on the new
	/// primary, Patroni's leader is the member seen promoted, busy 0 / pending 0 / idle == total and
	/// created - closed == total per endpoint. Runs scenario.restore and "wait 120" at the end, passed or
	/// failed. Prints one line "HA <name> ...". The scenario's own bounds are the caller's to assert.
	/// "The leader" is the primary the cluster's script names (Patroni's leader, pg_auto_failover's primary).

} } // namespace BlueTusk::Test

#endif // BlueTusk_FailoverScenario_INCLUDED
