//
// PluginImage.cpp
//
// Library: BlueTusk/Foundation
//
// A plugin library as this process loads it: a private copy of the file, opened once and kept open, with
// its declared plugin ABI version checked (doc/plugin-loading.md, "Loading: ABI version and private copies").
// Loading from a copy means replacing or rewriting the original file on disk cannot change the mapped
// image of a loaded plugin (cp over a mapped library rewrites its pages in place: SIGBUS or worse).
//

#include "BlueTusk/PluginRegistry.h"
#include "Poco/Path.h"
#include "Poco/SharedLibrary.h"
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace BlueTusk {

namespace {

using AbiVersionFunction = int (*)();
using RepeatedNamesFunction = const char* (*)();

struct FileIdentity
	/// What stat() says of a file: equal identities mean the same, unchanged file (a rewrite changes its
	/// size, modification or status change time), so its content need not be read and hashed again.
{
	dev_t device = 0;
	ino_t inode = 0;
	off_t size = 0;
	struct timespec modified = {0, 0};
	struct timespec changed = {0, 0};

	explicit FileIdentity(const struct stat& status):
		device(status.st_dev),
		inode(status.st_ino),
		size(status.st_size),
		modified(status.st_mtim),
		changed(status.st_ctim)
	{
	}

	FileIdentity() = default;

	bool operator == (const FileIdentity& other) const
	{
		return device == other.device && inode == other.inode && size == other.size &&
			modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec &&
			changed.tv_sec == other.changed.tv_sec && changed.tv_nsec == other.changed.tv_nsec;
	}
};


struct LoadedImage
{
	PluginImage image;
	std::uint64_t digest = 0;
	FileIdentity identity;   /// of the file when its content last matched digest
	std::unique_ptr<Poco::SharedLibrary> library; // never unloaded: classes and objects may still use it
};


std::mutex& imagesMutex()
{
	static std::mutex mutex;
	return mutex;
}


std::map<std::string, LoadedImage>& images()
{
	// Never destroyed: a plugin object may be destroyed by a static destructor after this map's would run.
	static auto* loaded = new std::map<std::string, LoadedImage>();
	return *loaded;
}


std::string canonical(const std::string& path)
{
	char buffer[PATH_MAX];
	if (::realpath(path.c_str(), buffer)) return buffer;
	return path;
}


std::string errnoText(int error)
{
	return std::strerror(error);
}


std::string readAll(const std::string& path)
	/// The file's bytes; throws BlueTuskPluginException (with the system's reason) when it cannot be read.
{
	const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) throw BlueTuskPluginException(errnoText(errno));
	std::string content;
	char buffer[65536];
	for (;;)
	{
		const ssize_t n = ::read(fd, buffer, sizeof buffer);
		if (n < 0 && errno == EINTR) continue;
		if (n < 0)
		{
			const int error = errno;
			::close(fd);
			throw BlueTuskPluginException(errnoText(error));
		}
		if (n == 0) break;
		content.append(buffer, static_cast<std::size_t>(n));
	}
	::close(fd);
	return content;
}


std::uint64_t digestOf(const std::string& content)
	/// FNV-1a, 64 bits: tells a rewritten file from the one loaded (not a security measure).
{
	std::uint64_t hash = 1469598103934665603ULL;
	for (unsigned char c: content)
	{
		hash ^= c;
		hash *= 1099511628211ULL;
	}
	return hash;
}


std::string writePrivateCopy(const std::string& content, const std::string& fileName)
	/// Writes content to a new file in a new private directory under the temporary directory; returns its path.
{
	std::string dirTemplate = Poco::Path::temp() + "bluetusk-plugin-XXXXXX";
	if (!::mkdtemp(&dirTemplate[0])) throw BlueTuskPluginException("cannot make a private copy in " + Poco::Path::temp() + ": " + errnoText(errno));
	const std::string copy = dirTemplate + "/" + fileName;
	const int fd = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0500);
	if (fd < 0)
	{
		const int error = errno;
		::rmdir(dirTemplate.c_str());
		throw BlueTuskPluginException("cannot make a private copy in " + dirTemplate + ": " + errnoText(error));
	}
	std::size_t written = 0;
	while (written < content.size())
	{
		const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0)
		{
			const int error = errno;
			::close(fd);
			::unlink(copy.c_str());
			::rmdir(dirTemplate.c_str());
			throw BlueTuskPluginException("cannot make a private copy in " + dirTemplate + ": " + errnoText(error));
		}
		written += static_cast<std::size_t>(n);
	}
	::close(fd);
	return copy;
}


void removePrivateCopy(const std::string& copy)
	/// The opened copy stays mapped after its name is gone; the dynamic loader finds it again by that name.
{
	::unlink(copy.c_str());
	::rmdir(Poco::Path(copy).parent().toString().c_str());
}


std::vector<std::string> splitLines(const char* text)
{
	std::vector<std::string> lines;
	std::string line;
	for (const char* p = text ? text : ""; *p; ++p)
	{
		if (*p == '\n')
		{
			if (!line.empty()) lines.push_back(line);
			line.clear();
		}
		else line += *p;
	}
	if (!line.empty()) lines.push_back(line);
	return lines;
}


std::string cannotLoad(const std::string& what, const std::string& path, const std::string& reason)
{
	return "cannot load " + what + " \"" + path + "\": " + reason;
}


void checkDeclarations(const PluginImage& image, const std::string& what, const std::string& path)
{
	if (!image.buildManifest)
		throw BlueTuskPluginException(cannotLoad(what, path, "it exports no Poco class manifest (POCO_BEGIN_MANIFEST)"));
	if (image.abiVersion == 0)
		throw BlueTuskPluginException(cannotLoad(what, path, "it declares no BlueTusk plugin ABI version (add BLUETUSK_PLUGIN_ABI(); "
			"beside its manifest); this BlueTusk expects plugin ABI version " + std::to_string(pluginAbiVersion())));
	if (image.abiVersion != pluginAbiVersion())
		throw BlueTuskPluginException(cannotLoad(what, path, "it was built for BlueTusk plugin ABI version " + std::to_string(image.abiVersion) +
			"; this BlueTusk expects plugin ABI version " + std::to_string(pluginAbiVersion()) + " (rebuild it against this BlueTusk)"));
}

std::string truncatedImage(const std::string& content)
	// Why a 64-bit ELF file cannot be mapped whole ("" when it can, or when it is no 64-bit ELF file: dlopen()
	// refuses those with a message of its own). dlopen() maps each PT_LOAD segment from the file and fills its
	// tail in memory; a segment reaching past the end of a truncated file (a copy still being written) gets
	// SIGBUS in the dynamic loader instead of an error, so such a file is refused before it is loaded.
{
	if (content.size() < EI_NIDENT || std::memcmp(content.data(), ELFMAG, SELFMAG) != 0 || content[EI_CLASS] != ELFCLASS64)
		return std::string();
	if (content.size() < sizeof(Elf64_Ehdr))
		return "it is " + std::to_string(content.size()) + " bytes, shorter than an ELF header (truncated?)";
	Elf64_Ehdr header;
	std::memcpy(&header, content.data(), sizeof(header));
	const std::uint64_t size = content.size();
	const std::uint64_t tableEnd = header.e_phoff + std::uint64_t(header.e_phnum) * header.e_phentsize;
	if (header.e_phentsize < sizeof(Elf64_Phdr) || header.e_phoff > size || tableEnd > size)
		return "its program header table ends past its " + std::to_string(size) + " bytes (truncated?)";
	for (unsigned index = 0; index < header.e_phnum; ++index)
	{
		Elf64_Phdr segment;
		std::memcpy(&segment, content.data() + header.e_phoff + std::uint64_t(index) * header.e_phentsize, sizeof(segment));
		if (segment.p_type == PT_LOAD && (segment.p_offset > size || segment.p_filesz > size - segment.p_offset))
			return "a segment ends at byte " + std::to_string(segment.p_offset + segment.p_filesz) + " of a " + std::to_string(size)
				+ "-byte file (truncated, or still being copied?)";
	}
	return std::string();
}

} // namespace


int pluginAbiVersion()
{
	return BLUETUSK_PLUGIN_ABI_VERSION;
}


PluginImage openPluginImage(const std::string& path, const std::string& what)
{
	const std::string file = canonical(path);
	struct stat status;
	if (::stat(file.c_str(), &status) != 0 || !S_ISREG(status.st_mode))
		throw BlueTuskPluginException(cannotLoad(what, path, "no such file"));
	const FileIdentity identity(status);
	{
		// The same file, unchanged since it was loaded or last compared: no read, no hash (every routing
		// context loads the five standard libraries; reading and hashing them each time cost a data
		// source's creation several ms, far more under ThreadSanitizer; doc/plugins.md).
		std::lock_guard<std::mutex> lock(imagesMutex());
		const auto loaded = images().find(file);
		if (loaded != images().end() && loaded->second.identity == identity)
		{
			checkDeclarations(loaded->second.image, what, path);
			return loaded->second.image;
		}
	}
	std::string content;
	try
	{
		content = readAll(file);
	}
	catch (BlueTuskPluginException& exc)
	{
		throw BlueTuskPluginException(cannotLoad(what, path, "cannot read it: " + exc.message()));
	}
	const std::uint64_t digest = digestOf(content);

	std::lock_guard<std::mutex> lock(imagesMutex());
	const auto loaded = images().find(file);
	if (loaded != images().end())
	{
		if (loaded->second.digest != digest)
			throw BlueTuskPluginException(cannotLoad(what, path, "the file changed on disk since this process loaded it; the copy loaded "
				"then stays in use (restart the process to load the new file)"));
		loaded->second.identity = identity;   // touched or copied anew with the same content: still the same image
		checkDeclarations(loaded->second.image, what, path);
		return loaded->second.image;
	}

	const std::string truncated = truncatedImage(content);
	if (!truncated.empty()) throw BlueTuskPluginException(cannotLoad(what, path, "not a whole shared library: " + truncated));
	const std::string copy = writePrivateCopy(content, Poco::Path(file).getFileName());
	LoadedImage entry;
	entry.digest = digest;
	entry.identity = identity;
	entry.image.file = file;
	entry.image.loadedFile = copy;
	try
	{
		entry.library.reset(new Poco::SharedLibrary(copy));
	}
	catch (Poco::Exception& exc)
	{
		removePrivateCopy(copy);
		std::string reason = exc.displayText();
		// dlerror() names the copy; name the file the caller gave.
		for (std::size_t at = reason.find(copy); at != std::string::npos; at = reason.find(copy, at + file.size()))
			reason.replace(at, copy.size(), file);
		throw BlueTuskPluginException(cannotLoad(what, path, reason));
	}
	removePrivateCopy(copy);
	Poco::SharedLibrary& library = *entry.library;
	if (library.hasSymbol("pocoBuildManifest")) entry.image.buildManifest = library.getSymbol("pocoBuildManifest");
	if (library.hasSymbol("bluetuskPluginAbiVersion"))
		entry.image.abiVersion = reinterpret_cast<AbiVersionFunction>(library.getSymbol("bluetuskPluginAbiVersion"))();
	if (library.hasSymbol("bluetuskPluginRepeatedNames")) entry.image.repeatedNamesFunction = library.getSymbol("bluetuskPluginRepeatedNames");
	const PluginImage image = entry.image;
	images().emplace(file, std::move(entry));
	checkDeclarations(image, what, path);
	return image;
}


std::vector<std::string> PluginImage::repeatedNames() const
{
	if (!repeatedNamesFunction) return {};
	return splitLines(reinterpret_cast<RepeatedNamesFunction>(repeatedNamesFunction)());
}

} // namespace BlueTusk
