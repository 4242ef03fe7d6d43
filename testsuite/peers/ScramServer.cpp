//
// ScramServer.cpp
//
// Library: BlueTusk test peers
//

#include "ScramServer.h"
#include "Poco/Base64Decoder.h"
#include "Poco/Base64Encoder.h"
#include "Poco/RandomStream.h"
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <sstream>
#include <stdexcept>

namespace BlueTusk {
namespace Test {
namespace Detail {

namespace
{
	std::string randomBytes(std::size_t count)
	{
		Poco::RandomInputStream random;
		std::string bytes(count, '\0');
		random.read(&bytes[0], static_cast<std::streamsize>(count));
		return bytes;
	}

	std::string hmac(const std::string& key, const std::string& data)
	{
		unsigned char out[EVP_MAX_MD_SIZE];
		unsigned int length = 0;
		HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
			reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length);
		return std::string(reinterpret_cast<const char*>(out), length);
	}

	std::string sha256(const std::string& data)
	{
		unsigned char out[SHA256_DIGEST_LENGTH];
		SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
		return std::string(reinterpret_cast<const char*>(out), sizeof(out));
	}

	std::string attribute(const std::string& message, char name)
		/// The value of "<name>=..." among the comma-separated attributes, or throws.
	{
		std::size_t pos = 0;
		while (pos <= message.size())
		{
			std::size_t end = message.find(',', pos);
			if (end == std::string::npos) end = message.size();
			if (end - pos >= 2 && message[pos] == name && message[pos + 1] == '=')
				return message.substr(pos + 2, end - pos - 2);
			pos = end + 1;
		}
		throw std::runtime_error(std::string("SCRAM attribute missing: ") + name);
	}
}


ScramServer::ScramServer(const std::string& password, int iterations):
	_password(password),
	_iterations(iterations),
	_salt(randomBytes(16))
{
}


std::string ScramServer::serverFirst(const std::string& clientFirstMessage)
{
	// gs2-header: "n,," / "y,," / "p=<binding>,," then client-first-message-bare
	std::size_t first = clientFirstMessage.find(',');
	if (first == std::string::npos) throw std::runtime_error("malformed SCRAM client-first-message");
	std::size_t second = clientFirstMessage.find(',', first + 1);
	if (second == std::string::npos) throw std::runtime_error("malformed SCRAM client-first-message");
	_clientFirstBare = clientFirstMessage.substr(second + 1);
	std::string clientNonce = attribute(_clientFirstBare, 'r');
	if (clientNonce.empty()) throw std::runtime_error("empty SCRAM client nonce");
	std::string serverNonce = base64(randomBytes(18));
	_nonce = clientNonce + serverNonce;
	_serverFirst = "r=" + _nonce + ",s=" + base64(_salt) + ",i=" + std::to_string(_iterations);
	return _serverFirst;
}


bool ScramServer::verifyClientFinal(const std::string& clientFinalMessage)
{
	std::size_t proofPos = clientFinalMessage.find(",p=");
	if (proofPos == std::string::npos) return false;
	std::string withoutProof = clientFinalMessage.substr(0, proofPos);
	std::string proof = unbase64(clientFinalMessage.substr(proofPos + 3));
	std::string nonce;
	try
	{
		nonce = attribute(withoutProof, 'r');
	}
	catch (std::exception&)
	{
		return false;
	}
	if (nonce != _nonce || proof.size() != SHA256_DIGEST_LENGTH) return false;

	unsigned char salted[SHA256_DIGEST_LENGTH];
	PKCS5_PBKDF2_HMAC(_password.data(), static_cast<int>(_password.size()),
		reinterpret_cast<const unsigned char*>(_salt.data()), static_cast<int>(_salt.size()),
		_iterations, EVP_sha256(), sizeof(salted), salted);
	std::string saltedPassword(reinterpret_cast<const char*>(salted), sizeof(salted));
	std::string storedKey = sha256(hmac(saltedPassword, "Client Key"));
	std::string serverKey = hmac(saltedPassword, "Server Key");
	_authMessage = _clientFirstBare + "," + _serverFirst + "," + withoutProof;
	std::string clientSignature = hmac(storedKey, _authMessage);
	std::string clientKey(proof.size(), '\0');
	for (std::size_t i = 0; i < proof.size(); ++i) clientKey[i] = static_cast<char>(proof[i] ^ clientSignature[i]);
	if (sha256(clientKey) != storedKey) return false;
	_serverSignature = hmac(serverKey, _authMessage);
	return true;
}


std::string ScramServer::serverFinal(bool corrupt) const
{
	std::string signature = _serverSignature;
	if (corrupt)
	{
		if (signature.empty()) signature.assign(SHA256_DIGEST_LENGTH, '\0');
		signature[0] = static_cast<char>(signature[0] ^ 0x5a);
	}
	return "v=" + base64(signature);
}


std::string ScramServer::base64(const std::string& bytes)
{
	std::ostringstream out;
	Poco::Base64Encoder encoder(out);
	encoder.rdbuf()->setLineLength(0);
	encoder << bytes;
	encoder.close();
	return out.str();
}


std::string ScramServer::unbase64(const std::string& text)
{
	try
	{
		std::istringstream in(text);
		Poco::Base64Decoder decoder(in);
		std::string bytes((std::istreambuf_iterator<char>(decoder)), std::istreambuf_iterator<char>());
		return bytes;
	}
	catch (...)
	{
		return "";
	}
}

} } } // namespace BlueTusk::Test::Detail
