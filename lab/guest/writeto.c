/*
 * writeto: write each argument, as one write(2), to FILE opened once.
 *   writeto FILE LINE...
 * Copied under another name, it gives a scenario a client process with a
 * name of its choosing (busybox applets cannot be renamed). Exit 1 on the
 * first failed write.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: writeto FILE LINE...\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		if (write(fd, argv[i], strlen(argv[i])) < 0) {
			fprintf(stderr, "writeto: '%s': ", argv[i]);
			perror("write");
			return 1;
		}
	}
	return close(fd) ? 1 : 0;
}
