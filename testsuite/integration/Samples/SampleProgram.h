//
// SampleProgram.h
//
// Integration tests of the samples: running the built sample programs (bluetusk-connect,
// bluetusk-pool-monitor) as child processes, and where the build put them.
//

#ifndef BlueTusk_Test_SampleProgram_INCLUDED
#define BlueTusk_Test_SampleProgram_INCLUDED

#include "Poco/JSON/Object.h"
#include "Poco/Pipe.h"
#include "Poco/Process.h"
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Test {

std::string builtFile(const std::string& relative);
	/// BLUETUSK_BINARY_DIR/relative ("bin/bluetusk-connect"). Throws Poco::FileNotFoundException saying which
	/// target to build when the file does not exist.

std::string connectProgram();     /// bin/bluetusk-connect
std::string monitorProgram();     /// bin/bluetusk-pool-monitor
std::string preferredHostsPlugin(); /// samples/plugins/libBlueTuskPreferredHostsPlugin.so

std::string clusterHosts(const std::string& hostList, const std::string& extra = "");
	/// The cluster's connection string for hostList with TLS verify-full against the cluster's certificate.

std::string endpointOf(int node);
	/// "127.0.0.<node>:<cluster port>".


struct ProgramResult
{
	int status = -1;
	std::string out;
	std::string err;

	std::vector<std::string> lines() const;
		/// out split into lines (no empty last line).

	Poco::JSON::Object::Ptr json(std::size_t line) const;
		/// Line number line of out parsed as a JSON object (fails the test with the output when it is not).

	std::string describe() const;
		/// "status N; stdout: ...; stderr: ..." for assertion messages.
};


ProgramResult runProgram(const std::string& program, const std::vector<std::string>& args);
	/// Runs program with args to its end, capturing stdout and stderr.


class BackgroundProgram
	/// A program that keeps running (bluetusk-pool-monitor) while the test talks to it.
{
public:
	BackgroundProgram(const std::string& program, const std::vector<std::string>& args);
	~BackgroundProgram();
		/// Kills the program if it still runs.

	std::string waitForLine(const std::string& prefix, long timeoutMs);
		/// The first stdout line beginning with prefix; fails the test when the program ends or the time runs
		/// out first.

	int stop(long timeoutMs = 10000);
		/// Requests termination (SIGINT, as Ctrl-C) and returns the exit status; kills it after timeoutMs
		/// (the status is then 256 + the signal number, as Poco reports it).

	int waitForExit(long timeoutMs = 30000);
		/// Waits for the program to end by itself; returns its exit status.

	std::string output() const;
	std::string errors() const;

private:
	void readOut();
	void readErr();
	bool exited();
		/// Whether the program has ended (reaps it once: _status then holds its exit status).

	std::unique_ptr<Poco::ProcessHandle> _handle;
	Poco::Pipe _out;
	Poco::Pipe _err;
	std::thread _outReader;
	std::thread _errReader;
	mutable std::mutex _mutex;
	std::condition_variable _changed;
	std::vector<std::string> _lines;
	std::string _errors;
	bool _outClosed = false;
	bool _exited = false;
	int _status = -1;
};


struct HttpAnswer
{
	int status = 0;
	std::string contentType;
	std::string body;

	Poco::JSON::Object::Ptr json() const;
};


HttpAnswer httpGet(const std::string& baseUrl, const std::string& pathAndQuery);

std::string writeTextFile(const std::string& path, const std::string& text);
	/// Writes text to path; returns path.

std::string threeNodeMonitorProperties();
	/// bluetusk-pool-monitor's configuration with metrics on and one data source "main" over the three
	/// cluster nodes (TLS verify-full, Minimum Pool Size 1, Maximum Pool Size 4, prefer-standby).
	/// GET baseUrl ("http://127.0.0.1:40123/") + pathAndQuery ("stats").

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_SampleProgram_INCLUDED
