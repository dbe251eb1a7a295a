# nginx with the RTMP module (Debian 12's nginx and libnginx-mod-rtmp) as the CDN ingest of
# docker/compose.yaml and docker/compose.cluster.yaml, built from the same `debian:bookworm-slim`
# base as Tessera's image, so no other image has to be pulled. It serves nginx-rtmp.conf
# (application `live` on port 1935; a compose file may mount another over /etc/nginx/nginx.conf).
# Build it from the repository root:
#
#   docker build -f docker/nginx-rtmp.Dockerfile -t tessera-nginx-rtmp:local docker
FROM debian:bookworm-slim

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx libnginx-mod-rtmp \
 && rm -rf /var/lib/apt/lists/*

COPY nginx-rtmp.conf /etc/nginx/nginx.conf

EXPOSE 1935/tcp
# nginx-rtmp.conf has no load_module line (tiangolo's nginx has the module built in), so it is
# loaded here; -g directives are read before the file.
CMD ["nginx", "-g", "daemon off; load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;"]
