//
// ScramServerMessageFuzzer.cpp
//
// libFuzzer target: the SCRAM client against arbitrary server-first and server-final messages (the input,
// split at the first '\n'). Only BlueTuskAuthenticationException (malformed or wrong messages) and
// Poco::TimeoutException (an iteration count too high for the 5 ms deadline: a short one keeps the rate of executions up, and the
// derivation of small counts, and so the server-final checks, still run) may come out.
//

#include "BlueTusk/BlueTuskException.h"
#include "connect/Deadline.h"
#include "connect/ScramClient.h"
#include "Poco/Exception.h"
#include <cstdint>
#include <string>

using namespace BlueTusk;


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
	const std::string input(reinterpret_cast<const char*>(data), size);
	const std::size_t newline = input.find('\n');
	const std::string serverFirst = input.substr(0, newline);
	const std::string serverFinal = newline == std::string::npos ? std::string() : input.substr(newline + 1);
	ScramClient::clearCache(); // every input derives afresh (the cache would hide the derivation)
	ScramClient client("pencil", ScramClient::NONE, std::string(), std::string(), "rOprNGfwEbeRWgbNEkqO");
	const Deadline deadline(Poco::Timespan(0, 5000));
	try
	{
		client.clientFinalMessage(serverFirst, &deadline);
		client.verifyServerFinal(serverFinal);
	}
	catch (BlueTuskAuthenticationException&)
	{
	}
	catch (Poco::TimeoutException&)
	{
	}
	return 0;
}
