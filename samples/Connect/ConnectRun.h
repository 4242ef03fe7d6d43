//
// ConnectRun.h
//
// bluetusk-connect: the opens (unpooled, or pooled checkouts from several threads).
//

#ifndef BlueTusk_Samples_ConnectRun_INCLUDED
#define BlueTusk_Samples_ConnectRun_INCLUDED

#include "ConnectOptions.h"
#include "ConnectReport.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/RoutingContext.h"
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace BlueTusk {
namespace Samples {

class ConnectRun
	/// Runs --count opens (per thread with --pool --threads), each one: open, report the endpoint and role,
	/// run --query, hold --hold-ms, close. Then --stats and, when more than one open ran, a summary.
{
public:
	ConnectRun(const ConnectOptions& options, const ConnectionSettings& settings, RoutingContext& connector, ConnectReport& report);

	int run();
		/// Returns how many opens or queries failed.

private:
	void runUnpooled();
	void runPooled();
	void openOnce(const std::function<BlueTuskConnection()>& open);
	bool streamQuery(int number, BlueTuskConnection& connection, ServerRole role, double ms);
		/// Runs --query row by row when it is one statement with result columns and reports it; false
		/// (nothing run or printed) otherwise.

	const ConnectOptions& _options;
	ConnectionSettings _settings;
	RoutingContext& _connector;
	ConnectReport& _report;
	std::atomic<int> _number{0};
	std::atomic<int> _failures{0};
	std::mutex _mutex;
	std::map<std::string, int> _perEndpoint;
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_ConnectRun_INCLUDED
