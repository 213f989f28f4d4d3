/* What cgroup paths name (core/cgroups): container ids, pod UIDs, systemd units, the labels. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cgroups.h"
#include "sinks/cgroup_labels.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "4f2c1b7e-9a3d-4e5f-8a1b-2c3d4e5f6a7b"
#define UID_ "4f2c1b7e_9a3d_4e5f_8a1b_2c3d4e5f6a7b"

static void expect(const char *path, const char *cid, const char *pod, const char *unit)
{
	struct xp_cgroup_info ci;

	xp_cgroup_parse(path, &ci);
	CHECK_STR(ci.container_id, cid);
	CHECK_STR(ci.pod_uid, pod);
	CHECK_STR(ci.unit, unit);
	if (strcmp(ci.container_id, cid) || strcmp(ci.pod_uid, pod) || strcmp(ci.unit, unit))
		fprintf(stderr, "  for %s\n", path);
}

static void test_runtimes(void)
{
	expect("/system.slice/docker-" ID ".scope", ID, "", "docker-" ID ".scope");
	expect("/docker/" ID, ID, "", "");
	expect("/system.slice/crio-" ID ".scope", ID, "", "crio-" ID ".scope");
	/* podman: the container's scope, with its payload in a child cgroup */
	expect("/machine.slice/libpod-" ID ".scope/container", ID, "", "libpod-" ID ".scope");
	/* the runtime's monitor is not the container */
	expect("/machine.slice/libpod-conmon-" ID ".scope", "", "", "libpod-conmon-" ID ".scope");
	expect("/user.slice/user-1000.slice/user@1000.service/app.slice/app-foo.scope", "", "",
	       "app-foo.scope");
	expect("/system.slice/ssh.service", "", "", "ssh.service");
	expect("/", "", "", "");
	/* a 64-character name that is not hex is no id */
	expect("/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg", "", "", "");
}

static void test_kubernetes(void)
{
	/* systemd driver: underscores in the slice name stand for the UID's dashes */
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/"
	       "cri-containerd-" ID ".scope", ID, UID, "cri-containerd-" ID ".scope");
	expect("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", ID, UID, "crio-" ID ".scope");
	/* cgroupfs driver */
	expect("/kubepods/besteffort/pod" UID "/" ID, ID, UID, "");
	/* "pod" outside kubepods is no pod */
	expect("/pod" UID, "", "", "");
}

static void test_labels(void)
{
	char buf[512] = "";

	xp_cgroup_labels("/kubepods/burstable/pod" UID "/" ID, NULL, buf, sizeof(buf));
	CHECK_STR(buf, "cgroup=\"/kubepods/burstable/pod" UID "/" ID "\",container_id=\"" ID
		       "\",pod_uid=\"" UID "\"");
	buf[0] = '\0';
	xp_cgroup_labels("/system.slice/a\"b.service", NULL, buf, sizeof(buf));
	CHECK_STR(buf, "cgroup=\"/system.slice/a\\\"b.service\",systemd_unit=\"a\\\"b.service\"");
}

/* A file (or link) made empty at root/rel */
static void touch(const char *root, const char *rel)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if ((f = fopen(p, "w")))
		fclose(f);
	else
		mkdir(p, 0755);	/* a name ending in / is a directory */
}

/* Names from the kubelet's log layout: by container id, else by pod UID; look-alikes not taken. */
static void test_k8s_names(void)
{
	char root[] = "/tmp/xp-k8s-XXXXXX", buf[1024] = "", p[600];
	struct xp_cgroup_info ci;
	struct xp_k8s_names k;

	CHECK(mkdtemp(root) != NULL);
	touch(root, "containers/");
	touch(root, "pods/");
	/* another container of the same pod, one whose id only ends the same, a name with '_' too many */
	touch(root, "containers/trainer-7d9f_ml-jobs_sidecar-" "1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.log");
	touch(root, "containers/trainer-7d9f_ml-jobs_worker-" ID ".log");
	touch(root, "containers/x_y_z_w-" ID "0.log");
	touch(root, "containers/a_b_c_d-" ID ".log");	/* a '_' in a name: not the kubelet's */
	touch(root, "pods/ml-jobs_trainer-7d9f_" UID "/");
	touch(root, "pods/other_pod-1_" "00000000-0000-0000-0000-000000000000/");

	xp_cgroup_parse("/kubepods/burstable/pod" UID "/" ID, &ci);
	CHECK(xp_k8s_names(root, &ci, &k));
	CHECK_STR(k.ns, "ml-jobs");
	CHECK_STR(k.pod, "trainer-7d9f");
	CHECK_STR(k.container, "worker");
	/* the pod's own cgroup: its names without a container */
	xp_cgroup_parse("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice", &ci);
	CHECK(xp_k8s_names(root, &ci, &k));
	CHECK_STR(k.ns, "ml-jobs");
	CHECK_STR(k.pod, "trainer-7d9f");
	CHECK_STR(k.container, "");
	/* a container the kubelet has not logged (yet): its pod's names */
	xp_cgroup_parse("/kubepods/burstable/pod" UID "/fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210", &ci);
	CHECK(xp_k8s_names(root, &ci, &k));
	CHECK_STR(k.pod, "trainer-7d9f");
	CHECK_STR(k.container, "");
	/* a container of no pod known, no logs at all */
	xp_cgroup_parse("/system.slice/docker-" ID ".scope", &ci);
	snprintf(p, sizeof(p), "%s/containers/trainer-7d9f_ml-jobs_worker-" ID ".log", root);
	unlink(p);
	CHECK(!xp_k8s_names(root, &ci, &k));
	CHECK(!xp_k8s_names("/nonexistent", &ci, &k));
	CHECK(!xp_k8s_names(NULL, &ci, &k));
	/* the labels, with the names */
	touch(root, "containers/trainer-7d9f_ml-jobs_worker-" ID ".log");
	xp_cgroup_labels("/kubepods/burstable/pod" UID "/" ID, root, buf, sizeof(buf));
	CHECK_STR(buf, "cgroup=\"/kubepods/burstable/pod" UID "/" ID "\",container_id=\"" ID
		       "\",pod_uid=\"" UID "\",namespace=\"ml-jobs\",pod=\"trainer-7d9f\",container=\"worker\"");
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK(system(p) == 0);
}

/* The cache on a plain directory tree: inode numbers as ids, one walk for many lookups. */
static void test_cache(void)
{
	char root[] = "/tmp/xp-cg-XXXXXX", p[256];
	struct xp_cgroup_cache *c;
	struct stat st;

	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/a.slice", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a.slice/b.service", root);
	mkdir(p, 0755);
	stat(p, &st);
	c = xp_cgroup_cache_new(root);
	CHECK_STR(xp_cgroup_cache_path(c, st.st_ino), "/a.slice/b.service");
	CHECK_STR(xp_cgroup_cache_path(c, st.st_ino), "/a.slice/b.service");
	snprintf(p, sizeof(p), "%s/a.slice", root);
	stat(p, &st);
	CHECK_STR(xp_cgroup_cache_path(c, st.st_ino), "/a.slice");
	CHECK_U64(xp_cgroup_cache_walks(c), 1);
	stat(root, &st);
	CHECK_STR(xp_cgroup_cache_path(c, st.st_ino), "/");
	/* unknown: one more walk, then remembered */
	CHECK(xp_cgroup_cache_path(c, 1) == NULL);
	CHECK(xp_cgroup_cache_path(c, 1) == NULL);
	CHECK_U64(xp_cgroup_cache_walks(c), 2);
	xp_cgroup_cache_free(c);
	snprintf(p, sizeof(p), "%s/a.slice/b.service", root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/a.slice", root);
	rmdir(p);
	rmdir(root);
}

/*
 * A cgroup's labels rendered once and kept: a second series of it reads no
 * directory (the names stay when the log is gone); names the kubelet had not
 * logged yet are looked for again only once the retry time has passed.
 */
static void test_cache_labels(void)
{
	char root[] = "/tmp/xp-cgl-XXXXXX", logs[] = "/tmp/xp-cgl-logs-XXXXXX", p[400], cid[80];
	const char *l;
	struct xp_cgroup_cache *c;
	struct stat st, st2;
	uint64_t t = 1000;

	CHECK(mkdtemp(root) != NULL && mkdtemp(logs) != NULL);
	snprintf(p, sizeof(p), "%s/kubepods", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kubepods/pod" UID, root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kubepods/pod" UID "/" ID, root);
	mkdir(p, 0755);
	stat(p, &st);
	snprintf(cid, sizeof(cid), "%.63s1", ID);	/* a second container, logged later */
	snprintf(p, sizeof(p), "%s/kubepods/pod" UID "/%s", root, cid);
	mkdir(p, 0755);
	stat(p, &st2);
	touch(logs, "containers/");
	touch(logs, "pods/");
	touch(logs, "containers/trainer-7d9f_ml-jobs_worker-" ID ".log");
	touch(logs, "pods/ml-jobs_trainer-7d9f_" UID "/");
	c = xp_cgroup_cache_new(root);
	CHECK(xp_cgroup_cache_labels(c, 0, logs, t) == NULL);
	l = xp_cgroup_cache_labels(c, st.st_ino, logs, t);
	CHECK(l && strstr(l, ",container=\"worker\"") != NULL);
	snprintf(p, sizeof(p), "%s/containers/trainer-7d9f_ml-jobs_worker-" ID ".log", logs);
	unlink(p);
	l = xp_cgroup_cache_labels(c, st.st_ino, logs, t + 100 * XP_CGROUP_NAMES_RETRY_NS);
	CHECK(l && strstr(l, ",container=\"worker\"") != NULL);	/* kept, not read again */
	/* its pod is logged, the container not yet: looked for again after the retry time */
	l = xp_cgroup_cache_labels(c, st2.st_ino, logs, t);
	CHECK(l && strstr(l, ",pod=\"trainer-7d9f\"") != NULL && !strstr(l, "container="));
	snprintf(p, sizeof(p), "containers/trainer-7d9f_ml-jobs_loader-%s.log", cid);
	touch(logs, p);
	l = xp_cgroup_cache_labels(c, st2.st_ino, logs, t + XP_CGROUP_NAMES_RETRY_NS - 1);
	CHECK(l && !strstr(l, "container="));
	l = xp_cgroup_cache_labels(c, st2.st_ino, logs, t + XP_CGROUP_NAMES_RETRY_NS);
	CHECK(l && strstr(l, ",container=\"loader\"") != NULL);
	/* an id of no cgroup: the one "(unknown)" series */
	l = xp_cgroup_cache_labels(c, 1, logs, t);
	CHECK(l && !strcmp(l, "cgroup=\"(unknown)\""));
	xp_cgroup_cache_free(c);
	snprintf(p, sizeof(p), "rm -rf '%s' '%s'", root, logs);
	CHECK(system(p) == 0);
}

int main(void)
{
	RUN(test_k8s_names);
	RUN(test_runtimes);
	RUN(test_kubernetes);
	RUN(test_labels);
	RUN(test_cache);
	RUN(test_cache_labels);
	UNIT_EXIT();
}
