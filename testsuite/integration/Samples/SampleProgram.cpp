//
// SampleProgram.cpp
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/Clock.h"
#include "Poco/Exception.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/JSON/Parser.h"
#include "Poco/Net/HTTPClientSession.h"
#include "Poco/Net/HTTPRequest.h"
#include "Poco/Net/HTTPResponse.h"
#include "Poco/PipeStream.h"
#include "Poco/StreamCopier.h"
#include "Poco/Thread.h"
#include "Poco/URI.h"
#include <cppunit/TestAssert.h>
#include <sstream>

namespace BlueTusk {
namespace Test {

std::string builtFile(const std::string& relative)
{
	std::string path = std::string(BLUETUSK_BINARY_DIR) + "/" + relative;
	if (!Poco::File(path).exists())
	{
		throw Poco::FileNotFoundException(path + " (build the samples: cmake --build " + BLUETUSK_BINARY_DIR +
			" --target bluetusk-connect bluetusk-pool-monitor BlueTuskPreferredHostsPlugin)");
	}
	return path;
}


std::string connectProgram()
{
	return builtFile("bin/bluetusk-connect");
}


std::string monitorProgram()
{
	return builtFile("bin/bluetusk-pool-monitor");
}


std::string preferredHostsPlugin()
{
	return builtFile("samples/plugins/libBlueTuskPreferredHostsPlugin.so");
}


std::string clusterHosts(const std::string& hostList, const std::string& extra)
{
	std::string tls = "SSL Mode=verify-full;Root Certificate=" + cluster().rootCertificate();
	return cluster().connectionString(hostList, extra.empty() ? tls : tls + ";" + extra);
}


std::string endpointOf(int node)
{
	return cluster().hosts.at(node - 1) + ":" + std::to_string(cluster().port);
}


std::vector<std::string> ProgramResult::lines() const
{
	std::vector<std::string> result;
	std::istringstream in(out);
	std::string line;
	while (std::getline(in, line)) result.push_back(line);
	return result;
}


Poco::JSON::Object::Ptr ProgramResult::json(std::size_t line) const
{
	std::vector<std::string> all = lines();
	CPPUNIT_ASSERT_MESSAGE("no line " + std::to_string(line) + " in: " + describe(), line < all.size());
	try
	{
		Poco::JSON::Parser parser;
		return parser.parse(all[line]).extract<Poco::JSON::Object::Ptr>();
	}
	catch (Poco::Exception& exc)
	{
		CPPUNIT_FAIL("line " + std::to_string(line) + " is not a JSON object (" + exc.displayText() + "): " + all[line]);
	}
	return nullptr;
}


std::string ProgramResult::describe() const
{
	return "status " + std::to_string(status) + "; stdout: " + out + "; stderr: " + err;
}


ProgramResult runProgram(const std::string& program, const std::vector<std::string>& args)
{
	Poco::Pipe outPipe, errPipe;
	Poco::ProcessHandle handle = Poco::Process::launch(program, args, nullptr, &outPipe, &errPipe);
	ProgramResult result;
	std::thread errReader([&errPipe, &result]
	{
		Poco::PipeInputStream in(errPipe);
		Poco::StreamCopier::copyToString(in, result.err);
	});
	Poco::PipeInputStream in(outPipe);
	Poco::StreamCopier::copyToString(in, result.out);
	errReader.join();
	result.status = handle.wait();
	return result;
}


BackgroundProgram::BackgroundProgram(const std::string& program, const std::vector<std::string>& args)
{
	_handle.reset(new Poco::ProcessHandle(Poco::Process::launch(program, args, nullptr, &_out, &_err)));
	_outReader = std::thread([this] { readOut(); });
	_errReader = std::thread([this] { readErr(); });
}


BackgroundProgram::~BackgroundProgram()
{
	try
	{
		if (!exited()) Poco::Process::kill(*_handle);
		waitForExit(10000);
	}
	catch (...)
	{
	}
	if (_outReader.joinable()) _outReader.join();
	if (_errReader.joinable()) _errReader.join();
}


bool BackgroundProgram::exited()
{
	if (!_exited)
	{
		int status = _handle->tryWait();
		if (status != -1)
		{
			_exited = true;
			_status = status;
		}
	}
	return _exited;
}


void BackgroundProgram::readOut()
{
	Poco::PipeInputStream in(_out);
	std::string line;
	while (std::getline(in, line))
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_lines.push_back(line);
		_changed.notify_all();
	}
	std::lock_guard<std::mutex> lock(_mutex);
	_outClosed = true;
	_changed.notify_all();
}


void BackgroundProgram::readErr()
{
	Poco::PipeInputStream in(_err);
	std::string line;
	while (std::getline(in, line))
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_errors += line + "\n";
	}
}


std::string BackgroundProgram::waitForLine(const std::string& prefix, long timeoutMs)
{
	std::unique_lock<std::mutex> lock(_mutex);
	std::size_t seen = 0;
	bool found = _changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&]
	{
		for (; seen < _lines.size(); ++seen)
		{
			if (_lines[seen].compare(0, prefix.size(), prefix) == 0) return true;
		}
		return _outClosed;
	});
	if (found && seen < _lines.size()) return _lines[seen];
	std::string out;
	for (const auto& line: _lines) out += line + "\n";
	lock.unlock();
	CPPUNIT_FAIL("no line \"" + prefix + "...\" (" + (found ? "the program ended" : "timed out") + "); stdout: " + out + "; stderr: " + errors());
	return "";
}


int BackgroundProgram::stop(long timeoutMs)
{
	if (!exited()) Poco::Process::requestTermination(_handle->id());
	return waitForExit(timeoutMs);
}


int BackgroundProgram::waitForExit(long timeoutMs)
{
	Poco::Clock start;
	while (!exited() && start.elapsed() < timeoutMs * 1000) Poco::Thread::sleep(10);
	if (!exited())
	{
		Poco::Process::kill(*_handle);
		while (!exited()) Poco::Thread::sleep(10);
	}
	if (_outReader.joinable()) _outReader.join();
	if (_errReader.joinable()) _errReader.join();
	return _status;
}


std::string BackgroundProgram::output() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::string out;
	for (const auto& line: _lines) out += line + "\n";
	return out;
}


std::string BackgroundProgram::errors() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _errors;
}


Poco::JSON::Object::Ptr HttpAnswer::json() const
{
	try
	{
		Poco::JSON::Parser parser;
		return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
	}
	catch (Poco::Exception& exc)
	{
		CPPUNIT_FAIL("not a JSON object (" + exc.displayText() + "): " + body);
	}
	return nullptr;
}


HttpAnswer httpGet(const std::string& baseUrl, const std::string& pathAndQuery)
{
	Poco::URI uri(baseUrl);
	Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
	session.setTimeout(Poco::Timespan(30, 0));
	Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/" + pathAndQuery, Poco::Net::HTTPMessage::HTTP_1_1);
	session.sendRequest(request);
	Poco::Net::HTTPResponse response;
	std::istream& in = session.receiveResponse(response);
	HttpAnswer answer;
	answer.status = response.getStatus();
	answer.contentType = response.getContentType();
	Poco::StreamCopier::copyToString(in, answer.body);
	return answer;
}

std::string writeTextFile(const std::string& path, const std::string& text)
{
	Poco::FileOutputStream out(path);
	out << text;
	out.close();
	return path;
}


std::string threeNodeMonitorProperties()
{
	return "poolMonitor.dataSource = main\n"
		"bluetusk.metrics.enabled = true\n"
		"bluetusk.dataSources.main.connectionString = " + clusterHosts("127.0.0.1,127.0.0.2,127.0.0.3") + "\n"
		"bluetusk.dataSources.main.minimumPoolSize = 1\n"
		"bluetusk.dataSources.main.maximumPoolSize = 4\n"
		"bluetusk.dataSources.main.targetSessionAttributes = prefer-standby\n";
}

} } // namespace BlueTusk::Test
