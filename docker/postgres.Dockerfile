# PostgreSQL 15 (Debian 12's) as the task store of docker/compose.cluster.yaml, built from the same
# `debian:bookworm-slim` base as Tessera's image, so no other image has to be pulled. For trying
# a cluster only: the role `tessera` has the password `tessera`, and the server listens on
# loopback (the compose file runs it with the host's network). Build it from the repository root:
#
#   docker build -f docker/postgres.Dockerfile -t tessera-postgres:local docker
#
# The database is made at build time; a named volume mounted on $PGDATA is filled from it on its
# first use, and keeps the tasks across `docker compose down` / `up`.
FROM debian:bookworm-slim

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)" /opt/pgbin

ENV PATH=/opt/pgbin:$PATH \
    PGDATA=/var/lib/postgresql/data

USER postgres
# A cluster of its own, the role and database Tessera's --store URL names (over TCP with a
# password: scram-sha-256), then stopped; the socket in /tmp, which needs no root to create.
RUN initdb --pgdata="$PGDATA" --username=postgres --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 \
 && pg_ctl --pgdata="$PGDATA" --wait --options="-c listen_addresses='' -c unix_socket_directories=/tmp" start \
 && psql --host=/tmp --username=postgres --dbname=postgres --set=ON_ERROR_STOP=1 \
        --command="CREATE ROLE tessera LOGIN PASSWORD 'tessera'" \
        --command="CREATE DATABASE tessera OWNER tessera" \
 && pg_ctl --pgdata="$PGDATA" --wait --mode=fast stop

VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432/tcp
STOPSIGNAL SIGINT
# The compose file gives its own command (loopback address and port); this is the default.
CMD ["postgres", "-D", "/var/lib/postgresql/data", "-c", "listen_addresses=*", "-c", "unix_socket_directories=/tmp"]
