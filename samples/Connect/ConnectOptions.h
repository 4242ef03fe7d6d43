//
// ConnectOptions.h
//
// bluetusk-connect: what the command line asked for.
//

#ifndef BlueTusk_Samples_ConnectOptions_INCLUDED
#define BlueTusk_Samples_ConnectOptions_INCLUDED

#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Util/OptionException.h"
#include <optional>
#include <limits>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Samples {

struct ConnectOptions
	/// The options of bluetusk-connect (doc/samples.md). check() rejects combinations that make no sense.
{
	std::string connectionString;
	std::optional<std::string> query;          /// --query SQL
	bool json = false;                         /// --json
	bool pool = false;                         /// --pool
	std::optional<std::string> target;         /// --target T: a standard target, or a site target-session policy
	std::string targetError;                   /// --target T not a standard name: why (unless a loaded policy has it)
	int count = 1;                             /// --count N
	int threads = 1;                           /// --threads T
	int holdMs = 0;                            /// --hold-ms M
	bool stats = false;                        /// --stats
	std::vector<std::string> plugins;          /// --plugin PATH (repeatable)
	bool listPolicies = false;                 /// --list-policies
	bool verbose = false;                      /// --verbose
	bool help = false;                         /// --help

	void check() const;
		/// Throws Poco::Util::InvalidArgumentException (a usage error) for --threads or --stats without
		/// --pool, a missing connection string, or more than one connection string.

	static const int MAX_THREADS = 1024;   /// --threads at most: each is an operating-system thread

	static int positiveNumber(const std::string& option, const std::string& value, int minimum,
		int maximum = std::numeric_limits<int>::max());
		/// value as an integer from minimum to maximum (default INT_MAX), else Poco::Util::InvalidArgumentException naming option:
		/// "--count 99999999999999999999 is out of range (accepted: 1 to 2147483647)" for digits outside that
		/// range, "--count needs a whole number >= 1 (accepted: ...), not "x"" for anything else.

	static bool isWholeNumber(const std::string& value);
		/// Whether value is an optional sign followed by one or more decimal digits (of any size).

	std::vector<std::string> positional; /// the arguments that are not options
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_ConnectOptions_INCLUDED
